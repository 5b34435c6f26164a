// shapes on the GPU: the shapes are known on the host; they go up in one upload and one copy.

#include <vector>

#include "sluice/ops/generic/shapes_op.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class ShapesGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    dtype_ = shapes_dtype(spec_);
  }
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize_uniform(in.num_samples(), {in.sample_ndim()}, dtype_);
    out.set_layout("");
    if (out.total_bytes() == 0) return;
    host_.resize(out.total_bytes());
    write_shapes(in, dtype_, host_.data());
    void* src = upload_->upload(host_.data(), host_.size(), ws.stream());
    cuda::memcpy_async(out.raw_data(), src, host_.size(), ws.stream());
  }

 private:
  DType dtype_ = DType::kInt64;
  std::vector<uint8_t> host_;
};

SLUICE_REGISTER_OPERATOR("shapes", OpDevice::kGPU, ShapesGpu);

}  // namespace
}  // namespace sluice
