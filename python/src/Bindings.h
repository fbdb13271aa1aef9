//===- Bindings.h - What the pieces of the _jeet extension share -*- C++
//-*-===//
//
// Part of the Jeet project.
//
// The extension is JeetModule.cpp (graphs, compiler, runtime tensors,
// devices), DLPack.cpp (DLPack capsules both ways) and GraphKey.cpp (the walk
// of a lazy graph's structural key); they raise the exception classes of
// jeet.errors through the helpers here.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_PYTHON_SRC_BINDINGS_H
#define JEET_PYTHON_SRC_BINDINGS_H

#include "jeet/Runtime/DType.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Status.h"
#include "jeet/Runtime/Tensor.h"

#include <nanobind/nanobind.h>

#include <string>
#include <vector>

namespace jeet_python {

/// The exception classes of jeet.errors (imported when the module loads).
struct ErrorClasses {
  nanobind::object base, shape, device, oom, compilation;
};
ErrorClasses &errors();

/// Raises `cls` with `message`.
[[noreturn]] void raise(const nanobind::object &cls,
                        const std::string &message);
/// Raises the class that matches the status's code.
[[noreturn]] void raiseStatus(const jeet::runtime::Status &status);
/// An error of Executable::run: the runtime's status text
/// ("OutOfMemory: ...") picks the class.
[[noreturn]] void raiseRunError(const std::string &message);

template <typename T> T check(jeet::runtime::StatusOr<T> value) {
  if (!value.ok())
    raiseStatus(value.status());
  return std::move(value).value();
}

/// "float32"/"f32", ... as a runtime dtype; raises JeetError otherwise.
jeet::runtime::DType parseDType(const std::string &name);
/// The device named "cpu"/"host" or "gpu"/"cuda"/"cuda:N".
jeet::runtime::Device &lookupDevice(const std::string &name);
nanobind::tuple shapeTuple(const std::vector<int64_t> &shape);

/// RuntimeTensor.dlpack, RuntimeTensor.dlpack_device, from_dlpack.
void bindDLPack(nanobind::module_ &m,
                nanobind::class_<jeet::runtime::Tensor> &tensor);

/// key_walk.
void bindGraphKey(nanobind::module_ &m);

/// register_tensor_type, record.
void bindRecording(nanobind::module_ &m);

} // namespace jeet_python

#endif // JEET_PYTHON_SRC_BINDINGS_H
