// grid_mask on the GPU: one kernel launch per batch.

#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/grid_mask_args.h"

namespace sluice {
namespace {

class GridMaskGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    check_grid_mask_input(in);
    out.resize(in.shapes(), in.dtype());
    out.set_layout(in.layout());
    const int n = in.num_samples();
    samples_.resize(n);
    int64_t max_pixels = 0;
    for (int i = 0; i < n; ++i) {
      samples_[i] = grid_mask_sample(ws, in, out, i);
      max_pixels = std::max(max_pixels, samples_[i].height * samples_[i].width);
    }
    kernels::grid_mask_gpu(upload_->upload(samples_, ws.stream()), n, max_pixels,
                           dtype_size(in.dtype()), ws.stream());
  }

 private:
  std::vector<kernels::GridMaskSample> samples_;
};

SLUICE_REGISTER_OPERATOR("grid_mask", OpDevice::kGPU, GridMaskGpu);

}  // namespace
}  // namespace sluice
