// water on the GPU.

#include "sluice/ops/image/displace_op_gpu.h"

namespace sluice {
namespace {

SLUICE_REGISTER_OPERATOR("water", OpDevice::kGPU, DisplaceGpu<kernels::DisplaceKind::kWater>);

}  // namespace
}  // namespace sluice
