//===- GraphKey.cpp - The walk of a lazy graph's structural key -----------===//
//
// Part of the Jeet project.
//
// key_walk(outputs): the walk of jeet._tensor._graph_key over the lazy
// Tensors under `outputs`, in C++ because a graph redefined on every call
// walks on every call. It reads the Tensors' slots (_rt, _inputs, _key,
// _shape, _dtype, _device; at their offsets once jeet.Tensor is registered,
// TensorSlots.h, else by name) and visits the DAG in _topo_order's order (post
// order, operands first and in order, each node once, materialised tensors
// as leaves), with a stack of its own (any depth).
//
// Per node, in that order, the key gets a leaf's (shape, dtype), or the
// node's _key (its key number, made when it was recorded) followed by the
// numbers of its operands. Returns (key tokens tuple, the numbers of the
// outputs tuple, the leaves list, the set of the devices of the leaves and of
// the nodes without operands), or None when a node has no key (a jit argument
// outside its trace, a node made without one): only the graph builder can
// say what is wrong then.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"
#include "TensorSlots.h"

#include <nanobind/nanobind.h>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using jeet_python::TensorSlots;

struct SlotNames {
  PyObject *rt, *inputs, *key, *shape, *dtype, *device;
};

const SlotNames &slotNames() {
  static const SlotNames names = {PyUnicode_InternFromString("_rt"),
                                  PyUnicode_InternFromString("_inputs"),
                                  PyUnicode_InternFromString("_key"),
                                  PyUnicode_InternFromString("_shape"),
                                  PyUnicode_InternFromString("_dtype"),
                                  PyUnicode_InternFromString("_device")};
  return names;
}

/// The slot `field` of `node`, named `name`: read at its offset from a
/// jeet.Tensor once the class is registered (TensorSlots.h), else by getattr.
nb::object slot(nb::handle node, PyObject *name,
                Py_ssize_t TensorSlots::*field) {
  const TensorSlots *slots = jeet_python::tensorSlots();
  if (slots && Py_TYPE(node.ptr()) == slots->type)
    if (PyObject *value = TensorSlots::get(node.ptr(), slots->*field))
      return nb::borrow(value);
  PyObject *value = PyObject_GetAttr(node.ptr(), name);
  if (!value)
    throw nb::python_error();
  return nb::steal(value);
}

/// A node whose operands are being visited.
struct Frame {
  nb::handle node;
  nb::object inputs; // the _inputs tuple
  Py_ssize_t next;   // the next operand to visit
};

class KeyWalk {
public:
  /// False when a node has no key.
  bool visitRoot(nb::handle root) {
    if (index.count(root.ptr()))
      return true;
    if (!slot(root, names.rt, &TensorSlots::rt).is_none()) {
      addLeaf(root);
      return true;
    }
    push(root);
    while (!stack.empty()) {
      Frame &frame = stack.back();
      Py_ssize_t size = PyTuple_GET_SIZE(frame.inputs.ptr());
      if (frame.next < size) {
        nb::handle input = PyTuple_GET_ITEM(frame.inputs.ptr(), frame.next++);
        if (index.count(input.ptr()))
          continue;
        if (!slot(input, names.rt, &TensorSlots::rt).is_none())
          addLeaf(input);
        else
          push(input); // invalidates `frame`
        continue;
      }
      if (!finish(frame))
        return false;
      stack.pop_back();
    }
    return true;
  }

  nb::object result(nb::handle outputs) {
    nb::list outs;
    for (nb::handle out : outputs)
      outs.append(index.at(out.ptr()));
    return nb::make_tuple(nb::steal(PyList_AsTuple(tokens.ptr())),
                          nb::steal(PyList_AsTuple(outs.ptr())), leaves,
                          devices);
  }

private:
  void push(nb::handle node) {
    nb::object inputs = slot(node, names.inputs, &TensorSlots::inputs);
    if (!PyTuple_Check(inputs.ptr()))
      throw nb::type_error("a lazy jeet.Tensor's operands must be a tuple");
    stack.push_back({node, std::move(inputs), 0});
  }

  void addLeaf(nb::handle node) {
    index.try_emplace(node.ptr(), index.size());
    tokens.append(nb::make_tuple(slot(node, names.shape, &TensorSlots::shape),
                                 slot(node, names.dtype, &TensorSlots::dtype)));
    leaves.append(node);
    addDevice(node);
  }

  void addDevice(nb::handle node) {
    nb::object device = slot(node, names.device, &TensorSlots::device);
    if (!device.is_none())
      devices.add(device);
  }

  bool finish(const Frame &frame) {
    nb::object key = slot(frame.node, names.key, &TensorSlots::key);
    if (key.is_none())
      return false;
    index.try_emplace(frame.node.ptr(), index.size());
    tokens.append(key);
    Py_ssize_t size = PyTuple_GET_SIZE(frame.inputs.ptr());
    for (Py_ssize_t i = 0; i < size; ++i)
      tokens.append(index.at(PyTuple_GET_ITEM(frame.inputs.ptr(), i)));
    // A node with operands is on their device (recording checks that they
    // agree): the leaves and the nodes without operands name every device.
    if (size == 0)
      addDevice(frame.node);
    return true;
  }

  const SlotNames &names = slotNames();
  // The graph's tensors are alive while `outputs` is: plain pointers do.
  llvm::SmallDenseMap<PyObject *, size_t, 32> index;
  llvm::SmallVector<Frame, 16> stack;
  nb::list tokens, leaves;
  nb::set devices;
};

nb::object keyWalk(nb::sequence outputs) {
  KeyWalk walk;
  for (nb::handle root : outputs)
    if (!walk.visitRoot(root))
      return nb::none();
  return walk.result(outputs);
}

} // namespace

namespace jeet_python {

void bindGraphKey(nb::module_ &m) {
  m.def("key_walk", &keyWalk, "outputs"_a,
        "The walk of a lazy graph's structural key (jeet._tensor._graph_key): "
        "(tokens, output numbers, leaves, devices), or None when a node has "
        "no key.");
}

} // namespace jeet_python
