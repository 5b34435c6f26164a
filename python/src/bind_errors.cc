// C++ error classes -> Python exception classes with useful Python bases:
//   SluiceError(RuntimeError), DecodeError(SluiceError), InvalidArgumentError(SluiceError,
//   ValueError), OutOfMemoryError(SluiceError, MemoryError), SluiceIOError(SluiceError, OSError),
//   CudaError(SluiceError), SluiceNotImplementedError(SluiceError, NotImplementedError);
//   EndOfData becomes StopIteration.

#include <Python.h>

#include <cstring>

#include "bindings.h"
#include "sluice/core/error.h"

namespace sluice::python {
namespace {

struct ErrorTypes {
  PyObject* base = nullptr;
  PyObject* decode = nullptr;
  PyObject* invalid = nullptr;
  PyObject* oom = nullptr;
  PyObject* io = nullptr;
  PyObject* cuda = nullptr;
  PyObject* not_impl = nullptr;
  PyObject* cancelled = nullptr;
};
ErrorTypes g_errors;

PyObject* make_type(nb::module_& m, const char* name, PyObject* base, PyObject* extra = nullptr) {
  std::string full = std::string("sluice._sluice.") + name;
  PyObject* bases = extra ? PyTuple_Pack(2, base, extra) : PyTuple_Pack(1, base);
  PyObject* type = PyErr_NewException(full.c_str(), bases, nullptr);
  Py_DECREF(bases);
  if (!type) throw nb::python_error();
  m.attr(name) = nb::handle(type);
  return type;
}

}  // namespace

void register_errors(nb::module_& m) {
  g_errors.base = make_type(m, "SluiceError", PyExc_RuntimeError);
  g_errors.decode = make_type(m, "DecodeError", g_errors.base);
  g_errors.invalid = make_type(m, "InvalidArgumentError", g_errors.base, PyExc_ValueError);
  g_errors.oom = make_type(m, "OutOfMemoryError", g_errors.base, PyExc_MemoryError);
  g_errors.io = make_type(m, "SluiceIOError", g_errors.base, PyExc_OSError);
  g_errors.cuda = make_type(m, "CudaError", g_errors.base);
  g_errors.not_impl =
      make_type(m, "SluiceNotImplementedError", g_errors.base, PyExc_NotImplementedError);
  g_errors.cancelled = make_type(m, "CancelledError", g_errors.base);

  // Messages may quote bytes from corrupt files: decode them leniently so the message survives.
  static auto set = [](PyObject* type, const char* what) {
    PyObject* msg =
        PyUnicode_DecodeUTF8(what, static_cast<Py_ssize_t>(std::strlen(what)), "replace");
    PyErr_SetObject(type, msg);
    Py_XDECREF(msg);
  };
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const EndOfData& e) {
      set(PyExc_StopIteration, e.what());
    } catch (const DecodeError& e) {
      set(g_errors.decode, e.what());
    } catch (const InvalidArgument& e) {
      set(g_errors.invalid, e.what());
    } catch (const OutOfMemory& e) {
      set(g_errors.oom, e.what());
    } catch (const IOError& e) {
      set(g_errors.io, e.what());
    } catch (const CudaError& e) {
      set(g_errors.cuda, e.what());
    } catch (const NotImplemented& e) {
      set(g_errors.not_impl, e.what());
    } catch (const Cancelled& e) {
      set(g_errors.cancelled, e.what());
    } catch (const Error& e) {
      set(g_errors.base, e.what());
    }
  });
}

}  // namespace sluice::python
