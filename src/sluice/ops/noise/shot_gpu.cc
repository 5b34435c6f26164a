// noise.shot on the GPU: the shared GPU class (noise_op_gpu.cc).

#include "sluice/ops/noise/noise_op.h"

namespace sluice {

SLUICE_REGISTER_OPERATOR("noise.shot", OpDevice::kGPU, NoiseGpu);

}  // namespace sluice
