// sphere on the GPU.

#include "sluice/ops/image/displace_op_gpu.h"

namespace sluice {
namespace {

SLUICE_REGISTER_OPERATOR("sphere", OpDevice::kGPU, DisplaceGpu<kernels::DisplaceKind::kSphere>);

}  // namespace
}  // namespace sluice
