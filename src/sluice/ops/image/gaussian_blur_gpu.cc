// gaussian_blur on the GPU: one launch per spatial axis for the whole batch, through
// intermediate buffers kept by the operator (FLOAT, or FLOAT64 for FLOAT64 input).

#include <algorithm>
#include <memory>

#include "sluice/kernels/convolution/convolution_gpu.h"
#include "sluice/memory/buffer.h"
#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/gaussian_blur.h"

namespace sluice {
namespace {

class GaussianBlurGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    windows_ = std::make_unique<ParamUpload>(ctx.device_id);
    for (auto& t : tmp_) t = Buffer(MemoryKind::kDevice, ctx.device_id);
  }

  void run(Workspace& ws) override {
    const SeparablePlan plan = plan_gaussian_blur(ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), plan.out_type);
    out.set_layout(in.layout());
    const int n = in.num_samples();
    if (n == 0) return;
    // Every window of the batch in one upload.
    std::vector<float> all;
    std::vector<size_t> first(n * plan.axes);
    for (int i = 0; i < n; ++i) {
      for (int a = 0; a < plan.axes; ++a) {
        first[i * plan.axes + a] = all.size();
        all.insert(all.end(), plan.windows[i][a].begin(), plan.windows[i][a].end());
      }
    }
    const float* dev_windows = windows_->upload(all, ws.stream());
    const size_t mid_size = dtype_size(kernels::conv::mid_type(plan.in_type));
    int64_t total = 0;
    for (const auto& s : plan.shapes) total += s.volume();
    const int num_tmp = plan.axes > 2 ? 2 : plan.axes - 1;
    for (int t = 0; t < num_tmp; ++t) {
      tmp_[t].set_stream(ws.stream());
      tmp_[t].resize(static_cast<size_t>(total) * mid_size);
    }
    std::vector<std::vector<kernels::conv::AxisPass>> passes(plan.axes);
    int64_t offset = 0;
    std::vector<int64_t> max_elements(plan.axes, 0);
    for (int i = 0; i < n; ++i) {
      const float* w[3] = {};
      int sizes[3] = {};
      for (int a = 0; a < plan.axes; ++a) {
        w[a] = dev_windows + first[i * plan.axes + a];
        sizes[a] = static_cast<int>(plan.windows[i][a].size());
      }
      void* tmp[2] = {nullptr, nullptr};
      for (int t = 0; t < num_tmp; ++t) {
        tmp[t] = static_cast<char*>(tmp_[t].data()) + offset * mid_size;
      }
      offset += plan.shapes[i].volume();
      auto p = kernels::conv::separable_passes(in.raw_sample(i), out.raw_sample(i), tmp,
                                               plan.shapes[i], w, sizes, 1.0f);
      for (int k = 0; k < plan.axes; ++k) {
        passes[k].push_back(p[k]);
        max_elements[k] = std::max(max_elements[k], plan.shapes[i].volume());
      }
    }
    const DType mid = kernels::conv::mid_type(plan.in_type);
    for (int k = 0; k < plan.axes; ++k) {
      const auto* dev = upload_->upload(passes[k], ws.stream());
      kernels::conv::convolve_axis_gpu(dev, n, max_elements[k], k == 0 ? plan.in_type : mid,
                                       k + 1 == plan.axes ? plan.out_type : mid, ws.stream());
    }
  }

 private:
  std::unique_ptr<ParamUpload> windows_;
  Buffer tmp_[2];
};

SLUICE_REGISTER_OPERATOR("gaussian_blur", OpDevice::kGPU, GaussianBlurGpu);

}  // namespace
}  // namespace sluice
