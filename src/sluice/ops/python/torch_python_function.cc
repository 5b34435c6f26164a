// torch_python_function: a Python function on torch tensors. The class is shared with the other
// Python operators (python_function_op.h); the GPU registration is in python_function_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/python/python_function_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(python_function_schema(
    "torch_python_function",
    "Executes a Python function on torch tensors (sluice.plugin.pytorch.fn.torch_python_function); "
    "once per sample, or once per batch with batch_processing.",
    /*synchronize_stream=*/true, /*batch_processing=*/false));

SLUICE_REGISTER_OPERATOR("torch_python_function", OpDevice::kCPU, PythonFunctionOp);

}  // namespace
}  // namespace sluice
