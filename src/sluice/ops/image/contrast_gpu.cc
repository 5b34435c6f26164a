// contrast on the GPU: the shared colour class (color_ops_gpu.cc).

#include "sluice/ops/image/color_ops.h"

namespace sluice {
namespace {

SLUICE_REGISTER_OPERATOR("contrast", OpDevice::kGPU, ColorGpu);

}  // namespace
}  // namespace sluice
