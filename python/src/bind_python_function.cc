// The runner of python_function and its kin (ops/python/python_function_op.h): on the operator's
// stage thread it takes the GIL, hands the inputs to sluice._python_function._run (which calls the
// user's function with DALI's conventions) and copies what it returns into the outputs. An
// exception of the function becomes a HostFunctionError holding the Python exception, which the
// translator below chains as the __cause__ of the error that Pipeline.run() raises.

#include <Python.h>
#include <nanobind/ndarray.h>

#include <cstring>
#include <string>
#include <vector>

#include "bindings.h"
#include "sluice/core/error.h"
#include "sluice/ops/python/python_function_op.h"

namespace sluice::python {
namespace {

using Array = nb::ndarray<nb::ro, nb::c_contig>;

PyObject* g_sluice_error = nullptr;  // sluice._sluice.SluiceError

bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

// The exception being raised, normalised, taken out of the error indicator.
nb::object take_raised() {
#if PY_VERSION_HEX >= 0x030C0000
  return nb::steal(PyErr_GetRaisedException());
#else
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb && value) PyException_SetTraceback(value, tb);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  return nb::steal(value);
#endif
}

// A Python exception as a HostFunctionError: the dispatcher's _FunctionError carries the message
// (function and sample named) and the user's exception as its __cause__; anything else is kept
// whole.
[[noreturn]] void rethrow_as_host_error(nb::python_error& e) {
  e.restore();
  nb::object exc = take_raised();
  static nb::handle function_error =
      nb::object(nb::module_::import_("sluice._python_function").attr("_FunctionError"))
          .release();  // leaked, as the other cached Python objects
  std::string msg = "an exception that cannot be printed";
  nb::object cause = exc;
  try {
    if (nb::isinstance(exc, function_error)) {
      msg = nb::cast<std::string>(nb::str(exc));
      cause = exc.attr("__cause__");
    } else {
      msg = make_string(nb::inst_name(exc).c_str(), ": ", nb::cast<std::string>(nb::str(exc)));
    }
  } catch (const nb::python_error&) {
    // A failing __str__: a python_error must not leave the GIL's scope (its release needs it).
  }
  throw HostFunctionError(msg, cause.is_none() ? nullptr : hold_python_object(cause));
}

// Output `k`'s samples (objects numpy / DLPack can export) copied into `out`, in `out`'s memory.
void fill_output(nb::handle samples, TensorList& out, int k, const HostFunctionCall& call) {
  const bool gpu = call.spec.device == OpDevice::kGPU;
  std::vector<Array> arrays;
  std::vector<Shape> shapes;
  int i = 0;
  for (nb::handle item : samples) {
    Array a;
    if (!nb::try_cast<Array>(item, a))
      throw InvalidArgument(make_string("output ", k, ", sample ", i, ": a ",
                                        nb::inst_name(item).c_str(),
                                        " is not a C-contiguous array or DLPack tensor"));
    const bool on_device = a.device_type() == nb::device::cuda::value;
    SLUICE_CHECK(on_device == gpu, InvalidArgument, "output ", k, ", sample ", i, ": ",
                 gpu ? "host" : "GPU", " data returned to a ", gpu ? "GPU" : "CPU", " operator");
    DType t = dtype_from_dl(a.dtype().code, a.dtype().bits);
    if (!arrays.empty()) {
      SLUICE_CHECK(t == dtype_from_dl(arrays[0].dtype().code, arrays[0].dtype().bits),
                   InvalidArgument, "output ", k, ": the samples must have one data type (sample ",
                   i, " differs)");
      SLUICE_CHECK(a.ndim() == arrays[0].ndim(), InvalidArgument, "output ", k,
                   ": all samples in the batch should have the same number of dimensions "
                   "(sample ",
                   i, " has ", a.ndim(), ", sample 0 has ", arrays[0].ndim(), ")");
    }
    Shape s;
    for (size_t d = 0; d < a.ndim(); ++d) s.push_back(static_cast<int64_t>(a.shape(d)));
    shapes.push_back(std::move(s));
    arrays.push_back(std::move(a));
    ++i;
  }
  SLUICE_CHECK(i == call.batch_size, InvalidArgument, "output ", k, " has ", i,
               " samples; the batch has ", call.batch_size);
  out.resize(std::move(shapes), dtype_from_dl(arrays[0].dtype().code, arrays[0].dtype().bits));
  nb::gil_scoped_release nogil;  // the arrays stay referenced; only the copies run
  for (int s = 0; s < i; ++s) {
    const size_t n = out.sample_bytes(s);
    if (n == 0) continue;
    if (gpu) {
      cuda::memcpy_async(out.raw_sample(s), arrays[s].data(), n, call.stream);
    } else {
      std::memcpy(out.raw_sample(s), arrays[s].data(), n);
    }
  }
  // The producer may free its memory once the arrays go: the copies must be done by then.
  if (gpu) cuda::stream_synchronize(call.stream);
}

void run_python_function(HostFunctionCall& call) {
  SLUICE_CHECK(Py_IsInitialized() && !interpreter_finalizing(), Cancelled,
               "the Python interpreter is shutting down");
  nb::gil_scoped_acquire gil;
  try {
    static nb::handle dispatch =
        nb::object(nb::module_::import_("sluice._python_function").attr("_run")).release();
    nb::list inputs;
    for (const TensorList* in : call.inputs) inputs.append(wrap_tensor_list(*in, nullptr));
    nb::object result = dispatch(call.spec.arg<int64_t>("function_id"), inputs, call.batch_size,
                                 reinterpret_cast<uintptr_t>(call.stream), call.device_id);
    size_t k = 0;
    for (nb::handle samples : result) {
      SLUICE_ENFORCE(k < call.outputs.size(), "more outputs than the operator has");
      fill_output(samples, *call.outputs[k], static_cast<int>(k), call);
      ++k;
    }
  } catch (nb::python_error& e) {
    rethrow_as_host_error(e);
  }
}

}  // namespace

void register_python_function(nb::module_& m) {
  g_sluice_error = m.attr("SluiceError").ptr();
  set_host_function_runner(&run_python_function);
  // Registered after register_errors(): nanobind tries the newest translator first.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const HostFunctionError& e) {
      nb::object msg = nb::steal(PyUnicode_DecodeUTF8(
          e.what(), static_cast<Py_ssize_t>(std::strlen(e.what())), "replace"));
      nb::object exc = nb::steal(PyObject_CallOneArg(g_sluice_error, msg.ptr()));
      if (!exc.is_valid()) return;  // the call's own error is set
      if (e.cause()) {
        PyObject* cause = static_cast<PyObject*>(const_cast<void*>(e.cause().get()));
        PyException_SetCause(exc.ptr(), Py_NewRef(cause));
      }
      PyErr_SetObject(g_sluice_error, exc.ptr());
    }
  });
}

}  // namespace sluice::python
