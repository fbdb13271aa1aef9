//===- Recording.cpp - Recording an op the process has seen before --------===//
//
// Part of the Jeet project.
//
// _jeet.record(op, x[, y]): the common case of jeet._tensor._node in C++,
// because a graph redefined on every call records every op on every call.
// _node asks the graph's type inference once per (op, operand types) and
// keeps the answer in jeet._tensor._INFERRED, a dict from a memo tuple to
// (shape, dtype, key number), looked up by name in jeet._tensor's globals on
// every call (tests replace the dict); record builds the same memo tuple for
// one operand, or for two operands of one dtype that is not bool (_binary's
// common case, whose ops take no attributes), looks it up and, on a hit,
// makes the lazy Tensor as _node would, writing its slots directly
// (TensorSlots.h). It returns None whenever _node has more to do: a memo
// miss (the first time, or after the memo was cleared), operands on
// different devices, operand dtypes that differ or are bool, a class other
// than jeet.Tensor, or before register_tensor_type.
//
// The memo tuples, as _node builds them:
//   one operand:  (op, shape, dtype, (), None)
//   two operands: (op, shape, dtype, shape, dtype, ())
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"
#include "TensorSlots.h"

#include <nanobind/nanobind.h>
#include <structmember.h>

namespace nb = nanobind;
using namespace nb::literals;

namespace jeet_python {
namespace {

TensorSlots registered;
bool isRegistered = false;
PyObject *globals = nullptr;      // jeet._tensor's globals (a strong reference)
PyObject *inferredName = nullptr; // "_INFERRED"
PyObject *boolDtype = nullptr;
PyObject *noAttributes = nullptr; // (), the memo's attributes part

/// The offset of the object slot `name` of `type`; raises if it is not one.
Py_ssize_t slotOffset(PyTypeObject *type, const char *name) {
  nb::object descriptor = nb::steal(
      PyObject_GetAttrString(reinterpret_cast<PyObject *>(type), name));
  if (!descriptor.is_valid())
    throw nb::python_error();
  if (Py_TYPE(descriptor.ptr()) != &PyMemberDescr_Type)
    throw nb::type_error(
        ("jeet.Tensor." + std::string(name) + " is not a slot").c_str());
  PyMemberDef *member =
      reinterpret_cast<PyMemberDescrObject *>(descriptor.ptr())->d_member;
  if (member->type != T_OBJECT_EX)
    throw nb::type_error(
        ("jeet.Tensor." + std::string(name) + " is not an object slot")
            .c_str());
  return member->offset;
}

void registerTensorType(nb::type_object type, nb::dict namespace_) {
  auto *tensorType = reinterpret_cast<PyTypeObject *>(type.ptr());
  TensorSlots slots;
  slots.type = tensorType;
  slots.rt = slotOffset(tensorType, "_rt");
  slots.op = slotOffset(tensorType, "_op");
  slots.inputs = slotOffset(tensorType, "_inputs");
  slots.attrs = slotOffset(tensorType, "_attrs");
  slots.shape = slotOffset(tensorType, "_shape");
  slots.dtype = slotOffset(tensorType, "_dtype");
  slots.device = slotOffset(tensorType, "_device");
  slots.source = slotOffset(tensorType, "_source");
  slots.key = slotOffset(tensorType, "_key");
  if (!boolDtype)
    boolDtype = PyUnicode_InternFromString("i1");
  if (!noAttributes)
    noAttributes = PyTuple_New(0);
  if (!inferredName)
    inferredName = PyUnicode_InternFromString("_INFERRED");
  if (!boolDtype || !noAttributes || !inferredName)
    throw nb::python_error();
  // Registered once per process (jeet._tensor is imported once); a second
  // registration replaces the first.
  Py_INCREF(type.ptr());
  Py_INCREF(namespace_.ptr());
  if (isRegistered) {
    Py_DECREF(reinterpret_cast<PyObject *>(registered.type));
    Py_DECREF(globals);
  }
  registered = slots;
  globals = namespace_.ptr();
  isRegistered = true;
}

/// Drops the registration (at exit: the Tensor class and the globals would
/// otherwise keep jeet._tensor's globals, and the executables they cache,
/// alive past the interpreter's teardown).
void unregisterTensorType() {
  if (!isRegistered)
    return;
  isRegistered = false;
  Py_DECREF(reinterpret_cast<PyObject *>(registered.type));
  Py_DECREF(globals);
  globals = nullptr;
}

/// Whether two dtype (or device) names are equal; -1 on error.
int sameName(PyObject *a, PyObject *b) {
  return a == b ? 1 : PyObject_RichCompareBool(a, b, Py_EQ);
}

/// A new lazy Tensor of `op` on `inputs` (stolen) with `found`, the memo's
/// (shape, dtype, key) tuple, on `device`; null on error.
PyObject *makeNode(PyObject *op, PyObject *inputs, PyObject *found,
                   PyObject *device) {
  const TensorSlots &s = registered;
  PyObject *t = s.type->tp_alloc(s.type, 0);
  if (!t) {
    Py_DECREF(inputs);
    return nullptr;
  }
  TensorSlots::init(t, s.rt, Py_NewRef(Py_None));
  TensorSlots::init(t, s.op, Py_NewRef(op));
  TensorSlots::init(t, s.inputs, inputs);
  TensorSlots::init(t, s.attrs, Py_NewRef(Py_None));
  TensorSlots::init(t, s.shape, Py_NewRef(PyTuple_GET_ITEM(found, 0)));
  TensorSlots::init(t, s.dtype, Py_NewRef(PyTuple_GET_ITEM(found, 1)));
  TensorSlots::init(t, s.device, Py_NewRef(device));
  TensorSlots::init(t, s.source, Py_NewRef(Py_None));
  TensorSlots::init(t, s.key, Py_NewRef(PyTuple_GET_ITEM(found, 2)));
  return t;
}

/// record(op, x) or record(op, x, y): a new lazy Tensor, or None.
PyObject *record(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 2 && nargs != 3) {
    PyErr_SetString(PyExc_TypeError,
                    "record(op, x[, y]) takes one or two operands");
    return nullptr;
  }
  if (!isRegistered)
    Py_RETURN_NONE;
  const TensorSlots &s = registered;
  PyObject *op = args[0];
  PyObject *x = args[1];
  if (Py_TYPE(x) != s.type)
    Py_RETURN_NONE;
  PyObject *xShape = TensorSlots::get(x, s.shape);
  PyObject *xDtype = TensorSlots::get(x, s.dtype);
  PyObject *device = TensorSlots::get(x, s.device);
  if (!xShape || !xDtype || !device)
    Py_RETURN_NONE;
  PyObject *memo;
  PyObject *inputs;
  if (nargs == 2) {
    memo = PyTuple_Pack(5, op, xShape, xDtype, noAttributes, Py_None);
    inputs = PyTuple_Pack(1, x);
  } else {
    PyObject *y = args[2];
    if (Py_TYPE(y) != s.type)
      Py_RETURN_NONE;
    PyObject *yShape = TensorSlots::get(y, s.shape);
    PyObject *yDtype = TensorSlots::get(y, s.dtype);
    PyObject *yDevice = TensorSlots::get(y, s.device);
    if (!yShape || !yDtype || !yDevice)
      Py_RETURN_NONE;
    int sameDtype = sameName(xDtype, yDtype);
    if (sameDtype < 0)
      return nullptr;
    int boolean = sameName(xDtype, boolDtype);
    if (boolean < 0)
      return nullptr;
    int sameDevice = sameName(device, yDevice);
    if (sameDevice < 0)
      return nullptr;
    if (!sameDtype || boolean || !sameDevice)
      Py_RETURN_NONE;
    memo = PyTuple_Pack(6, op, xShape, xDtype, yShape, yDtype, noAttributes);
    inputs = PyTuple_Pack(2, x, y);
  }
  if (!memo || !inputs) {
    Py_XDECREF(memo);
    Py_XDECREF(inputs);
    return nullptr;
  }
  PyObject *inferred = PyDict_GetItemWithError(globals, inferredName);
  if (!inferred || !PyDict_Check(inferred)) {
    Py_DECREF(memo);
    Py_DECREF(inputs);
    if (PyErr_Occurred())
      return nullptr;
    Py_RETURN_NONE;
  }
  PyObject *found = PyDict_GetItemWithError(inferred, memo); // borrowed
  Py_DECREF(memo);
  if (!found) {
    Py_DECREF(inputs);
    if (PyErr_Occurred())
      return nullptr;
    Py_RETURN_NONE;
  }
  if (!PyTuple_Check(found) || PyTuple_GET_SIZE(found) != 3) {
    Py_DECREF(inputs);
    PyErr_SetString(PyExc_TypeError,
                    "jeet._tensor._INFERRED holds a value that is not a "
                    "(shape, dtype, key) tuple");
    return nullptr;
  }
  return makeNode(op, inputs, found, device);
}

PyMethodDef recordMethod = {
    "record", reinterpret_cast<PyCFunction>(reinterpret_cast<void *>(record)),
    METH_FASTCALL,
    "record(op, x[, y]): the lazy Tensor of `op` on x (and y) when "
    "jeet._tensor._INFERRED has seen the op on these operand types (two "
    "operands: of one dtype, not bool, on one device), else None."};

} // namespace

const TensorSlots *tensorSlots() {
  return isRegistered ? &registered : nullptr;
}

void bindRecording(nb::module_ &m) {
  m.def("register_tensor_type", &registerTensorType, "type"_a, "namespace"_a,
        "Registers jeet._tensor.Tensor (its slots' offsets, for record and "
        "key_walk) and jeet._tensor's globals (its _INFERRED, for record).");
  m.def("unregister_tensor_type", &unregisterTensorType,
        "Drops register_tensor_type's references (jeet._tensor, at exit).");
  PyObject *function = PyCFunction_NewEx(&recordMethod, nullptr, m.ptr());
  if (!function || PyModule_AddObject(m.ptr(), "record", function) < 0) {
    Py_XDECREF(function);
    throw nb::python_error();
  }
}

} // namespace jeet_python
