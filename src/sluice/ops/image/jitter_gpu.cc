// jitter on the GPU.

#include "sluice/ops/image/displace_op_gpu.h"

namespace sluice {
namespace {

SLUICE_REGISTER_OPERATOR("jitter", OpDevice::kGPU, DisplaceGpu<kernels::DisplaceKind::kJitter>);

}  // namespace
}  // namespace sluice
