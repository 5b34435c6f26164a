// reductions.sum on the GPU: the shared GPU class (reduce_op_gpu.cc).

#include "sluice/ops/reductions/reduce_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_OPERATOR("reductions.sum", OpDevice::kGPU, ReduceGpu<kernels::ReduceOp::kSum>);

}  // namespace
}  // namespace sluice
