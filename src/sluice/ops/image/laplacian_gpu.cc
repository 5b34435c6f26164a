// laplacian on the GPU: one launch per pass (axes x axes of them) for the whole batch, through a
// FLOAT sum and intermediate images kept by the operator.

#include <algorithm>
#include <memory>

#include "sluice/kernels/convolution/convolution_gpu.h"
#include "sluice/memory/buffer.h"
#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/laplacian.h"

namespace sluice {
namespace {

class LaplacianGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    windows_ = std::make_unique<ParamUpload>(ctx.device_id);
    scratch_ = Buffer(MemoryKind::kDevice, ctx.device_id);
  }

  void run(Workspace& ws) override {
    const LaplacianPlan plan = plan_laplacian(ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), plan.out_type);
    out.set_layout(in.layout());
    const int n = in.num_samples();
    if (n == 0) return;
    std::vector<float> all;
    std::vector<size_t> first;
    for (int i = 0; i < n; ++i) {
      for (const auto& wd : plan.windows[i]) {
        for (const auto& w : wd) {
          first.push_back(all.size());
          all.insert(all.end(), w.begin(), w.end());
        }
      }
    }
    const float* dev_windows = windows_->upload(all, ws.stream());
    int64_t total = 0;
    for (const auto& s : plan.shapes) total += s.volume();
    scratch_.set_stream(ws.stream());
    scratch_.resize(static_cast<size_t>(3 * total) * sizeof(float));
    auto* base = static_cast<float*>(scratch_.data());
    const int per_sample = plan.axes * plan.axes;
    std::vector<std::vector<kernels::conv::AxisPass>> passes(per_sample);
    std::vector<int64_t> max_elements(per_sample, 0);
    int64_t offset = 0;
    for (int i = 0; i < n; ++i) {
      std::vector<const float*> windows;
      for (int k = 0; k < per_sample; ++k)
        windows.push_back(dev_windows + first[i * per_sample + k]);
      void* tmp[2] = {base + total + offset, base + 2 * total + offset};
      const auto p = laplacian_passes(plan, i, in.raw_sample(i), out.raw_sample(i), base + offset,
                                      tmp, windows);
      for (int k = 0; k < per_sample; ++k) {
        passes[k].push_back(p[k]);
        max_elements[k] = std::max(max_elements[k], plan.shapes[i].volume());
      }
      offset += plan.shapes[i].volume();
    }
    for (int k = 0; k < per_sample; ++k) {
      const bool first_pass = k % plan.axes == 0, last = k % plan.axes == plan.axes - 1;
      const auto* dev = upload_->upload(passes[k], ws.stream());
      kernels::conv::convolve_axis_gpu(
          dev, n, max_elements[k], first_pass ? plan.in_type : DType::kFloat32,
          last && k + 1 == per_sample ? plan.out_type : DType::kFloat32, ws.stream());
    }
  }

 private:
  std::unique_ptr<ParamUpload> windows_;
  Buffer scratch_;
};

SLUICE_REGISTER_OPERATOR("laplacian", OpDevice::kGPU, LaplacianGpu);

}  // namespace
}  // namespace sluice
