// erase on the GPU: one kernel launch per batch; the samples' descriptors, boxes and fill values
// go up in one upload.

#include <cstring>

#include "sluice/ops/generic/erase_args.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class EraseGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    check_erase_input(in);
    out.resize(in.shapes(), in.dtype());
    out.set_layout(in.layout());
    const int n = in.num_samples();
    samples_.assign(n, {});
    boxes_.clear();
    fill_.clear();
    int64_t max_volume = 0;
    for (int i = 0; i < n; ++i) {
      erase_sample_args(ws, in, i, samples_[i], boxes_, fill_);
      samples_[i].out = out.raw_sample(i);
      samples_[i].in = in.raw_sample(i);
      max_volume = std::max(max_volume, samples_[i].volume);
    }
    // One upload: [samples][boxes][fill values], each part 16-byte aligned.
    auto align = [](size_t b) { return (b + 15) / 16 * 16; };
    const size_t sample_bytes = align(samples_.size() * sizeof(kernels::EraseSample));
    const size_t box_bytes = align(boxes_.size() * sizeof(kernels::EraseBox));
    blob_.assign(sample_bytes + box_bytes + fill_.size() * sizeof(uint64_t), 0);
    std::memcpy(blob_.data(), samples_.data(), samples_.size() * sizeof(kernels::EraseSample));
    std::memcpy(blob_.data() + sample_bytes, boxes_.data(),
                boxes_.size() * sizeof(kernels::EraseBox));
    std::memcpy(blob_.data() + sample_bytes + box_bytes, fill_.data(),
                fill_.size() * sizeof(uint64_t));
    auto* dev = static_cast<uint8_t*>(upload_->upload(blob_.data(), blob_.size(), ws.stream()));
    kernels::erase_gpu(reinterpret_cast<const kernels::EraseSample*>(dev), n,
                       reinterpret_cast<const kernels::EraseBox*>(dev + sample_bytes),
                       reinterpret_cast<const uint64_t*>(dev + sample_bytes + box_bytes),
                       max_volume, dtype_size(in.dtype()), ws.stream());
  }

 private:
  std::vector<kernels::EraseSample> samples_;
  std::vector<kernels::EraseBox> boxes_;
  std::vector<uint64_t> fill_;
  std::vector<uint8_t> blob_;
};

SLUICE_REGISTER_OPERATOR("erase", OpDevice::kGPU, EraseGpu);

}  // namespace
}  // namespace sluice
