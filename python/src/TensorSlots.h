//===- TensorSlots.h - Direct access to jeet.Tensor's slots -----*- C++ -*-===//
//
// Part of the Jeet project.
//
// jeet._tensor.Tensor keeps its state in __slots__: each slot is a member
// descriptor with an offset into the object. The C++ parts that run on every
// redefined graph (recording an op, the structural key's walk) read and
// write the slots at those offsets instead of going through getattr and
// setattr (a type lookup and a descriptor call each). The offsets are taken
// once, from the class itself, when jeet._tensor registers it
// (_jeet.register_tensor_type); until then, or if the class's slots are not
// plain object slots, `slots()` is null and callers take the generic path.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_PYTHON_SRC_TENSORSLOTS_H
#define JEET_PYTHON_SRC_TENSORSLOTS_H

#include <Python.h>

#include <cstddef>

namespace jeet_python {

struct TensorSlots {
  PyTypeObject *type; // jeet._tensor.Tensor (a strong reference)
  Py_ssize_t rt, op, inputs, attrs, shape, dtype, device, source, key;

  /// The slot at `offset` of `tensor` (borrowed; null if never set).
  static PyObject *get(PyObject *tensor, Py_ssize_t offset) {
    return *reinterpret_cast<PyObject **>(reinterpret_cast<char *>(tensor) +
                                          offset);
  }
  /// Sets an unset slot of a new tensor to `value` (a new reference).
  static void init(PyObject *tensor, Py_ssize_t offset, PyObject *value) {
    *reinterpret_cast<PyObject **>(reinterpret_cast<char *>(tensor) + offset) =
        value;
  }
};

/// The registered Tensor class's slots, or null before registration.
const TensorSlots *tensorSlots();

} // namespace jeet_python

#endif // JEET_PYTHON_SRC_TENSORSLOTS_H
