// The GPU class of water, sphere and jitter (CUDA builds only), registered here for each kind: one
// kernel launch per batch.

#include <algorithm>
#include <vector>

#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/displace_op.h"

namespace sluice {
namespace {

template <kernels::DisplaceKind Kind>
class DisplaceGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const kernels::DisplaceParams p = displace_params(spec_, in, Kind);
    out.resize(in.shapes(), in.dtype());
    out.set_layout(in.layout());
    const int n = in.num_samples();
    samples_.resize(n);
    int64_t max_pixels = 0;
    for (int i = 0; i < n; ++i) {
      samples_[i] = displace_sample(ws, in, out, i, Kind);
      max_pixels = std::max(max_pixels, samples_[i].height * samples_[i].width);
    }
    kernels::displace_gpu(upload_->upload(samples_, ws.stream()), n, p, max_pixels, ws.stream());
  }

 private:
  std::vector<kernels::DisplaceSample> samples_;
};

SLUICE_REGISTER_OPERATOR("jitter", OpDevice::kGPU, DisplaceGpu<kernels::DisplaceKind::kJitter>);
SLUICE_REGISTER_OPERATOR("sphere", OpDevice::kGPU, DisplaceGpu<kernels::DisplaceKind::kSphere>);
SLUICE_REGISTER_OPERATOR("water", OpDevice::kGPU, DisplaceGpu<kernels::DisplaceKind::kWater>);

}  // namespace
}  // namespace sluice
