// paste on the GPU: one kernel launch per batch; the descriptors and the fill values go up in
// one upload.

#include <cstring>

#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/paste_args.h"

namespace sluice {
namespace {

class PasteGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    fill_ = paste_fill(spec_);
  }
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    check_paste_input(in, static_cast<int64_t>(fill_.size()));
    const int n = in.num_samples();
    samples_.resize(n);
    std::vector<Shape> shapes(n);
    int64_t max_height = 0;
    for (int i = 0; i < n; ++i) {
      samples_[i] = paste_sample(ws, in, i);
      shapes[i] = Shape{samples_[i].out_height, samples_[i].out_width, samples_[i].channels};
      max_height = std::max(max_height, samples_[i].out_height);
    }
    out.resize(shapes, DType::kUInt8);
    out.set_layout("HWC");
    for (int i = 0; i < n; ++i) {
      samples_[i].out = out.sample<uint8_t>(i);
      samples_[i].in = in.sample<uint8_t>(i);
    }
    const size_t sample_bytes = (n * sizeof(kernels::PasteSample) + 15) / 16 * 16;
    blob_.assign(sample_bytes + fill_.size(), 0);
    std::memcpy(blob_.data(), samples_.data(), n * sizeof(kernels::PasteSample));
    std::memcpy(blob_.data() + sample_bytes, fill_.data(), fill_.size());
    auto* dev = static_cast<uint8_t*>(upload_->upload(blob_.data(), blob_.size(), ws.stream()));
    kernels::paste_gpu(reinterpret_cast<const kernels::PasteSample*>(dev), n, dev + sample_bytes,
                       max_height, ws.stream());
  }

 private:
  std::vector<uint8_t> fill_;
  std::vector<kernels::PasteSample> samples_;
  std::vector<uint8_t> blob_;
};

SLUICE_REGISTER_OPERATOR("paste", OpDevice::kGPU, PasteGpu);

}  // namespace
}  // namespace sluice
