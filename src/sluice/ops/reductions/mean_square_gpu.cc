// reductions.mean_square on the GPU: the shared GPU class (reduce_op_gpu.cc).

#include "sluice/ops/reductions/reduce_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_OPERATOR("reductions.mean_square", OpDevice::kGPU,
                         ReduceGpu<kernels::ReduceOp::kMeanSquare>);

}  // namespace
}  // namespace sluice
