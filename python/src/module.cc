#include "bindings.h"

NB_MODULE(_sluice, m) {
  m.doc() = "Sluice native engine (see the sluice package for the Python API).";
  sluice::python::register_errors(m);
  sluice::python::register_tensors(m);
  sluice::python::register_pipeline(m);
  sluice::python::register_backend(m);
  sluice::python::register_python_function(m);
}
