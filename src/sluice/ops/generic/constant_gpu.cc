// constant on the GPU: the batch of copies goes up in one upload and one device copy.

#include <cstring>

#include "sluice/ops/generic/constant_op.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class ConstantGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    sample_ = constant_sample(spec_);
  }
  void run(Workspace& ws) override {
    const int n = ws.batch_size();
    TensorList& out = ws.output(0);
    out.resize_uniform(n, sample_.shape, sample_.dtype);
    out.set_layout(sample_.layout);
    const size_t bytes = sample_.bytes.size();
    if (n == 0 || bytes == 0) return;
    if (batch_.size() != bytes * n) {
      batch_.resize(bytes * n);
      for (int i = 0; i < n; ++i) std::memcpy(&batch_[i * bytes], sample_.bytes.data(), bytes);
    }
    void* src = upload_->upload(batch_.data(), batch_.size(), ws.stream());
    cuda::memcpy_async(out.raw_data(), src, batch_.size(), ws.stream());
  }

 private:
  ConstantSample sample_;
  std::vector<uint8_t> batch_;  // batch_size copies of the sample
};

SLUICE_REGISTER_OPERATOR("constant", OpDevice::kGPU, ConstantGpu);

}  // namespace
}  // namespace sluice
