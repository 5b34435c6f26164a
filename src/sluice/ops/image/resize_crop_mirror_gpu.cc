// resize_crop_mirror on the GPU: resize's GPU class (resize_gpu.cc), which reads the narrowed,
// possibly mirrored source window from resize_plan() and resizes straight into the output.

#include "sluice/ops/image/resize.h"

namespace sluice {

SLUICE_REGISTER_OPERATOR("resize_crop_mirror", OpDevice::kGPU, ResizeGpu);

}  // namespace sluice
