// python_function: a Python function on numpy arrays. The class is shared with the other Python
// operators (python_function_op.h); the GPU registration is in python_function_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/python/python_function_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    python_function_schema("python_function",
                           "Executes a Python function on the batch: numpy arrays on the CPU, CuPy "
                           "arrays (or DLPack-capable tensors without CuPy) on the GPU; once per "
                           "sample, or once per batch with batch_processing.",
                           /*synchronize_stream=*/false, /*batch_processing=*/false));

SLUICE_REGISTER_OPERATOR("python_function", OpDevice::kCPU, PythonFunctionOp);

}  // namespace
}  // namespace sluice
