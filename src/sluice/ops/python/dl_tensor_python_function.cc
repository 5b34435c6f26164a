// dl_tensor_python_function: a Python function on DLPack capsules. The class is shared with the
// other Python operators (python_function_op.h); the GPU registration is in
// python_function_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/python/python_function_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    python_function_schema("dl_tensor_python_function",
                           "Executes a Python function on DLPack tensors (capsules) and takes "
                           "DLPack capsules back; once per batch by default (batch_processing).",
                           /*synchronize_stream=*/true, /*batch_processing=*/true));

SLUICE_REGISTER_OPERATOR("dl_tensor_python_function", OpDevice::kCPU, PythonFunctionOp);

}  // namespace
}  // namespace sluice
