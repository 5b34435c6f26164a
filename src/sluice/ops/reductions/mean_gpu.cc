// reductions.mean on the GPU: the shared GPU class (reduce_op_gpu.cc).

#include "sluice/ops/reductions/reduce_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_OPERATOR("reductions.mean", OpDevice::kGPU, ReduceGpu<kernels::ReduceOp::kMean>);

}  // namespace
}  // namespace sluice
