// python_function, dl_tensor_python_function and torch_python_function on the GPU: the shared
// class (python_function_op.h) on device data.

#include "sluice/ops/python/python_function_op.h"

namespace sluice {

SLUICE_REGISTER_OPERATOR("python_function", OpDevice::kGPU, PythonFunctionOp);
SLUICE_REGISTER_OPERATOR("dl_tensor_python_function", OpDevice::kGPU, PythonFunctionOp);
SLUICE_REGISTER_OPERATOR("torch_python_function", OpDevice::kGPU, PythonFunctionOp);

}  // namespace sluice
