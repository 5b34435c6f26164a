// multi_paste on the GPU: one kernel launch per batch; the canvases' descriptors and their
// regions go up in one upload.

#include <cstring>

#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/multi_paste_args.h"

namespace sluice {
namespace {

class MultiPasteGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    MultiPastePlan plan = plan_multi_paste(ws);
    TensorList& out = ws.output(0);
    out.resize(plan.out_shapes, plan.out_type);
    out.set_layout(ws.input(0).layout());
    const int n = static_cast<int>(plan.samples.size());
    int64_t max_pixels = 0;
    for (int i = 0; i < n; ++i) {
      plan.samples[i].out = out.raw_sample(i);
      max_pixels = std::max(max_pixels, plan.samples[i].height * plan.samples[i].width);
    }
    const size_t sample_bytes = (n * sizeof(kernels::MultiPasteSample) + 15) / 16 * 16;
    blob_.assign(sample_bytes + plan.regions.size() * sizeof(kernels::PasteRegion), 0);
    std::memcpy(blob_.data(), plan.samples.data(), n * sizeof(kernels::MultiPasteSample));
    std::memcpy(blob_.data() + sample_bytes, plan.regions.data(),
                plan.regions.size() * sizeof(kernels::PasteRegion));
    auto* dev = static_cast<uint8_t*>(upload_->upload(blob_.data(), blob_.size(), ws.stream()));
    kernels::multi_paste_gpu(reinterpret_cast<const kernels::MultiPasteSample*>(dev), n,
                             reinterpret_cast<const kernels::PasteRegion*>(dev + sample_bytes),
                             max_pixels, plan.out_type, plan.in_type, ws.stream());
  }

 private:
  std::vector<uint8_t> blob_;
};

SLUICE_REGISTER_OPERATOR("multi_paste", OpDevice::kGPU, MultiPasteGpu);

}  // namespace
}  // namespace sluice
