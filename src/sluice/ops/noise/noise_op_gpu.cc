#include <algorithm>

#include "sluice/ops/noise/noise_op.h"

namespace sluice {

void NoiseGpu::run(Workspace& ws) {
  std::vector<kernels::NoiseSample> samples;
  const kernels::NoiseKind kind = plan_noise(spec_, ws, samples);
  int64_t max_n = 0;
  for (const auto& s : samples) max_n = std::max(max_n, s.n);
  kernels::noise_gpu(kind, upload_->upload(samples, ws.stream()), ws.batch_size(), max_n,
                     ws.input(0).dtype(), ws.stream());
}

SLUICE_REGISTER_OPERATOR("noise.gaussian", OpDevice::kGPU, NoiseGpu);
SLUICE_REGISTER_OPERATOR("noise.salt_and_pepper", OpDevice::kGPU, NoiseGpu);
SLUICE_REGISTER_OPERATOR("noise.shot", OpDevice::kGPU, NoiseGpu);

}  // namespace sluice
