// reductions.min on the GPU: the shared GPU class (reduce_op_gpu.cc).

#include "sluice/ops/reductions/reduce_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_OPERATOR("reductions.min", OpDevice::kGPU, ReduceGpu<kernels::ReduceOp::kMin>);

}  // namespace
}  // namespace sluice
