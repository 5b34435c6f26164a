// random_resized_crop on the GPU: resize's GPU class (resize_gpu.cc), which reads the random
// window from resize_plan().

#include "sluice/ops/image/resize.h"

namespace sluice {

SLUICE_REGISTER_OPERATOR("random_resized_crop", OpDevice::kGPU, ResizeGpu);

}  // namespace sluice
