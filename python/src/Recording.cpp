//===- Recording.cpp - Recording an op the process has seen before --------===//
//
// Part of the Jeet project.
//
// _jeet.record(op, x[, y[, z]]): the common case of jeet._tensor._node in C++,
// because a graph redefined on every call records every op on every call.
// _node asks the graph's type inference once per (op, operand types) and
// keeps the answer in jeet._tensor._INFERRED, a dict from a memo tuple to
// (shape, dtype, key number), looked up by name in jeet._tensor's globals on
// every call (tests replace the dict); record builds the same memo tuple for
// one operand, or for two operands of one dtype that is not bool (_binary's
// common case, whose ops take no attributes), or for three (jeet.select:
// jeet.where's common case, a bool condition and two tensors of one dtype,
// which the caller checks), looks it up and, on a hit,
// makes the lazy Tensor as _node would, writing its slots directly
// (TensorSlots.h). It returns None whenever _node has more to do: a memo
// miss (the first time, or after the memo was cleared), operands on
// different devices (a constant, on none, joins the other's), operand dtypes
// that differ or are bool, a class other than jeet.Tensor, or before
// register_tensor_type.
//
// _jeet.record_attributed(op, x, attrs_key, attrs, result): the same for
// one operand with attributes or a result type (a reshape's, a cast's).
//
// _jeet.attrs_key(attrs, freeze): _node's key of an op's attributes, in
// C++ for the values attributes mostly are (a reduction's axes, a reshape's
// shape): a Python function per value cost more than the rest of the op.
//
// The memo tuples, as _node builds them:
//   one operand:  (op, shape, dtype, attributes' key or (),
//                  None or the result's (shape tuple, dtype))
//   two operands: (op, shape, dtype, shape, dtype, ())
//   three:        (op, ((shape, dtype), (shape, dtype), (shape, dtype)), (),
//                  None)
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"
#include "TensorSlots.h"

#include <nanobind/nanobind.h>
#include <structmember.h>

#include <utility>

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
// attrs_key's type names (as type.__name__ gives them) and "hex".
PyObject *listName, *tupleName, *floatName, *intName, *boolName, *strName,
    *noneName, *hexName;

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

/// An operand's slots that the memo and the node need (borrowed).
struct Operand {
  PyObject *shape, *dtype, *device;
};

/// Reads `x`'s shape, dtype and device; false unless jeet.Tensor is
/// registered and x is one with all three set.
bool read(PyObject *x, Operand &operand) {
  const TensorSlots &s = registered;
  if (!isRegistered || Py_TYPE(x) != s.type)
    return false;
  operand = {TensorSlots::get(x, s.shape), TensorSlots::get(x, s.dtype),
             TensorSlots::get(x, s.device)};
  return operand.shape && operand.dtype && operand.device;
}

/// Whether two dtype (or device) names are equal; -1 on error.
int sameName(PyObject *a, PyObject *b) {
  return a == b ? 1 : PyObject_RichCompareBool(a, b, Py_EQ);
}

/// A new lazy Tensor of `op` on `inputs` (stolen) with `found`, the memo's
/// (shape, dtype, key) tuple, on `device`, with attributes `attrs`; null on
/// error.
PyObject *makeNode(PyObject *op, PyObject *inputs, PyObject *found,
                   PyObject *device, PyObject *attrs) {
  const TensorSlots &s = registered;
  PyObject *t = s.type->tp_alloc(s.type, 0);
  if (!t) {
    Py_DECREF(inputs);
    return nullptr;
  }
  TensorSlots::init(t, s.rt, Py_NewRef(Py_None));
  TensorSlots::init(t, s.op, Py_NewRef(op));
  TensorSlots::init(t, s.inputs, inputs);
  TensorSlots::init(t, s.attrs, Py_NewRef(attrs));
  TensorSlots::init(t, s.shape, Py_NewRef(PyTuple_GET_ITEM(found, 0)));
  TensorSlots::init(t, s.dtype, Py_NewRef(PyTuple_GET_ITEM(found, 1)));
  TensorSlots::init(t, s.device, Py_NewRef(device));
  TensorSlots::init(t, s.source, Py_NewRef(Py_None));
  TensorSlots::init(t, s.key, Py_NewRef(PyTuple_GET_ITEM(found, 2)));
  return t;
}

/// The node of `op` on `inputs` (stolen) whose memo tuple (stolen) is
/// `memo`, with attributes `attrs`: a new Tensor on a hit, None on a miss,
/// null on error.
PyObject *lookUp(PyObject *op, PyObject *memo, PyObject *inputs,
                 PyObject *device, PyObject *attrs) {
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
  // Held while the node is made: its allocation may collect garbage, and
  // whatever that runs may change the memo.
  Py_INCREF(found);
  PyObject *node = makeNode(op, inputs, found, device, attrs);
  Py_DECREF(found);
  return node;
}

/// record(op, c, x, y): _node's memo hit for three operands (jeet.select),
/// whose memo is the general form (op, ((shape, dtype), ...), (), None); the
/// devices that are set must agree (else _node says why). A new lazy Tensor,
/// None, or null on error.
PyObject *recordThree(PyObject *op, PyObject *const *operands) {
  PyObject *types = PyTuple_New(3);
  if (!types)
    return nullptr;
  PyObject *device = Py_None;
  for (int i = 0; i < 3; ++i) {
    Operand o;
    if (!read(operands[i], o)) {
      Py_DECREF(types);
      Py_RETURN_NONE;
    }
    if (o.device != Py_None) {
      int same = device == Py_None ? 1 : sameName(device, o.device);
      if (same <= 0) {
        Py_DECREF(types);
        if (same < 0)
          return nullptr;
        Py_RETURN_NONE;
      }
      device = o.device;
    }
    PyObject *type = PyTuple_Pack(2, o.shape, o.dtype);
    if (!type) {
      Py_DECREF(types);
      return nullptr;
    }
    PyTuple_SET_ITEM(types, i, type);
  }
  PyObject *memo = PyTuple_Pack(4, op, types, noAttributes, Py_None);
  Py_DECREF(types);
  PyObject *inputs = PyTuple_Pack(3, operands[0], operands[1], operands[2]);
  return lookUp(op, memo, inputs, device, Py_None);
}

/// record(op, x), record(op, x, y) or record(op, c, x, y): a new lazy
/// Tensor, or None.
PyObject *record(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs < 2 || nargs > 4) {
    PyErr_SetString(PyExc_TypeError,
                    "record(op, x[, y[, z]]) takes one to three operands");
    return nullptr;
  }
  PyObject *op = args[0];
  if (nargs == 4)
    return recordThree(op, args + 1);
  PyObject *x = args[1];
  Operand a;
  if (!read(x, a))
    Py_RETURN_NONE;
  PyObject *device = a.device;
  PyObject *memo;
  PyObject *inputs;
  if (nargs == 2) {
    memo = PyTuple_Pack(5, op, a.shape, a.dtype, noAttributes, Py_None);
    inputs = PyTuple_Pack(1, x);
  } else {
    PyObject *y = args[2];
    Operand b;
    if (!read(y, b))
      Py_RETURN_NONE;
    int sameDtype = sameName(a.dtype, b.dtype);
    if (sameDtype < 0)
      return nullptr;
    int boolean = sameName(a.dtype, boolDtype);
    if (boolean < 0)
      return nullptr;
    // A constant (no device) joins the other operand's device, as in
    // _common_device.
    int sameDevice = 1;
    if (b.device != Py_None) {
      if (device == Py_None)
        device = b.device;
      else if ((sameDevice = sameName(device, b.device)) < 0)
        return nullptr;
    }
    if (!sameDtype || boolean || !sameDevice)
      Py_RETURN_NONE;
    memo =
        PyTuple_Pack(6, op, a.shape, a.dtype, b.shape, b.dtype, noAttributes);
    inputs = PyTuple_Pack(2, x, y);
  }
  return lookUp(op, memo, inputs, device, Py_None);
}

/// record_attributed(op, x, attrs_key, attrs, result): the node of `op` on
/// x with attributes `attrs` whose key (_attrs_key) is `attrs_key`, and the
/// result type `result` ((shape tuple, dtype), or None): _node's memo hit
/// for one operand with attributes or a result type, as record's without.
PyObject *recordAttributed(PyObject *, PyObject *const *args,
                           Py_ssize_t nargs) {
  if (nargs != 5) {
    PyErr_SetString(PyExc_TypeError,
                    "record_attributed(op, x, attrs_key, attrs, result)");
    return nullptr;
  }
  PyObject *op = args[0];
  PyObject *x = args[1];
  Operand a;
  if (!read(x, a))
    Py_RETURN_NONE;
  PyObject *memo = PyTuple_Pack(5, op, a.shape, a.dtype, args[2], args[4]);
  PyObject *inputs = PyTuple_Pack(1, x);
  return lookUp(op, memo, inputs, a.device, args[3]);
}

/// _freeze(value) for the kinds attributes mostly are (exact bool, int,
/// str, None, float, and lists and tuples of them); `fallback` (_freeze
/// itself) for any other (NumPy arrays and scalars). New reference, or null.
PyObject *freeze(PyObject *value, PyObject *fallback) {
  PyTypeObject *kind = Py_TYPE(value);
  if (kind == &PyList_Type || kind == &PyTuple_Type) {
    Py_ssize_t size = PySequence_Fast_GET_SIZE(value);
    PyObject *frozen = PyTuple_New(size + 1);
    if (!frozen)
      return nullptr;
    PyObject *name = kind == &PyList_Type ? listName : tupleName;
    PyTuple_SET_ITEM(frozen, 0, Py_NewRef(name));
    for (Py_ssize_t i = 0; i < size; ++i) {
      PyObject *item = freeze(PySequence_Fast_GET_ITEM(value, i), fallback);
      if (!item) {
        Py_DECREF(frozen);
        return nullptr;
      }
      PyTuple_SET_ITEM(frozen, i + 1, item);
    }
    return frozen;
  }
  if (kind == &PyFloat_Type) {
    PyObject *hex = PyObject_CallMethodNoArgs(value, hexName);
    if (!hex)
      return nullptr;
    PyObject *frozen = PyTuple_Pack(2, floatName, hex);
    Py_DECREF(hex);
    return frozen;
  }
  PyObject *name = kind == &PyLong_Type      ? intName
                   : kind == &PyBool_Type    ? boolName
                   : kind == &PyUnicode_Type ? strName
                   : value == Py_None        ? noneName
                                             : nullptr;
  if (name)
    return PyTuple_Pack(2, name, value);
  return PyObject_CallOneArg(fallback, value);
}

/// attrs_key(attrs, freeze): _attrs_key, the attributes as a hashable key:
/// ((name, freeze(value)), ...) sorted by name.
PyObject *attrsKey(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 2 || !PyDict_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "attrs_key(attrs: dict, freeze)");
    return nullptr;
  }
  PyObject *attrs = args[0];
  PyObject *items = PyList_New(0);
  if (!items)
    return nullptr;
  Py_ssize_t position = 0;
  PyObject *name, *value;
  while (PyDict_Next(attrs, &position, &name, &value)) {
    PyObject *frozen = freeze(value, args[1]);
    PyObject *item = frozen ? PyTuple_Pack(2, name, frozen) : nullptr;
    Py_XDECREF(frozen);
    if (!item || PyList_Append(items, item) < 0) {
      Py_XDECREF(item);
      Py_DECREF(items);
      return nullptr;
    }
    Py_DECREF(item);
  }
  // The names are distinct: sorting the pairs sorts by name alone.
  if (PyList_Sort(items) < 0) {
    Py_DECREF(items);
    return nullptr;
  }
  PyObject *key = PyList_AsTuple(items);
  Py_DECREF(items);
  return key;
}

PyMethodDef attrsKeyMethod = {
    "attrs_key",
    reinterpret_cast<PyCFunction>(reinterpret_cast<void *>(attrsKey)),
    METH_FASTCALL,
    "attrs_key(attrs, freeze): jeet._tensor._attrs_key of a dict, freezing "
    "bools, ints, strings, None, floats (by hex) and lists and tuples of "
    "them here and any other value with `freeze`."};

PyMethodDef recordAttributedMethod = {
    "record_attributed",
    reinterpret_cast<PyCFunction>(reinterpret_cast<void *>(recordAttributed)),
    METH_FASTCALL,
    "record_attributed(op, x, attrs_key, attrs, result): the lazy Tensor of "
    "`op` on x with attributes `attrs` (keyed `attrs_key`) and the result "
    "type `result` ((shape tuple, dtype) or None) when jeet._tensor._INFERRED "
    "has seen it, else None."};

PyMethodDef recordMethod = {
    "record", reinterpret_cast<PyCFunction>(reinterpret_cast<void *>(record)),
    METH_FASTCALL,
    "record(op, x[, y[, z]]): the lazy Tensor of `op` on its operands when "
    "jeet._tensor._INFERRED has seen the op on these operand types (two "
    "operands: of one dtype, not bool; all: on one device or constants), "
    "else None."};

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
  for (auto [name, string] : {std::pair{&listName, "list"},
                              {&tupleName, "tuple"},
                              {&floatName, "float"},
                              {&intName, "int"},
                              {&boolName, "bool"},
                              {&strName, "str"},
                              {&noneName, "NoneType"},
                              {&hexName, "hex"}})
    if (!(*name = PyUnicode_InternFromString(string)))
      throw nb::python_error();
  for (PyMethodDef *method :
       {&recordMethod, &recordAttributedMethod, &attrsKeyMethod}) {
    PyObject *function = PyCFunction_NewEx(method, nullptr, m.ptr());
    if (!function ||
        PyModule_AddObject(m.ptr(), method->ml_name, function) < 0) {
      Py_XDECREF(function);
      throw nb::python_error();
    }
  }
}

} // namespace jeet_python
