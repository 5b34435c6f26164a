// "_tensor_subscript" on the GPU: one strided-copy launch per batch.

#include "sluice/ops/generic/tensor_subscript.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class TensorSubscriptGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    args_ = parse_subscript_args(spec_);
  }
  void run(Workspace& ws) override {
    const SubscriptPlan plan = plan_subscript(args_, spec_, ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(plan.out_shapes, in.dtype());
    out.set_layout(plan.layout);
    const int n = out.num_samples();
    descs_.resize(n);
    int64_t max_n = 0;
    for (int i = 0; i < n; ++i) {
      descs_[i] = subscript_copy(plan, in, out, i);
      max_n = std::max(max_n, kernels::strided_copy_volume(descs_[i]));
    }
    kernels::strided_copy_gpu(upload_->upload(descs_, ws.stream()), n, max_n,
                              dtype_size(in.dtype()), ws.stream());
  }

 private:
  SubscriptArgs args_;
  std::vector<kernels::StridedCopyDesc> descs_;
};

SLUICE_REGISTER_OPERATOR("_tensor_subscript", OpDevice::kGPU, TensorSubscriptGpu);

}  // namespace
}  // namespace sluice
