// reductions.std_dev on the GPU: the shared GPU class (reduce_op_gpu.cc).

#include "sluice/ops/reductions/reduce_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_OPERATOR("reductions.std_dev", OpDevice::kGPU,
                         ReduceGpu<kernels::ReduceOp::kStdDev>);

}  // namespace
}  // namespace sluice
