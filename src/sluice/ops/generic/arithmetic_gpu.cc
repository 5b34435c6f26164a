// "_arithmetic" on the GPU: one kernel launch per batch.

#include "sluice/kernels/elementwise/elementwise_gpu.h"
#include "sluice/ops/generic/arithmetic_op.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class ArithmeticGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    ops_ = parse_arithmetic(spec_);
  }
  void run(Workspace& ws) override {
    const ArithmeticPlan plan = plan_arithmetic(ops_, ws);
    TensorList& out = ws.output(0);
    out.resize(plan.shapes, plan.params.types.result);
    out.set_layout(plan.layout);
    const int n = out.num_samples();
    samples_.resize(n);
    int64_t max_n = 0;
    for (int i = 0; i < n; ++i) {
      samples_[i] = arithmetic_sample(ops_, plan, ws, out.raw_sample(i), i);
      max_n = std::max(max_n, volume(plan.shapes[i]));
    }
    kernels::arithmetic_gpu(plan.params, upload_->upload(samples_, ws.stream()), n, max_n,
                            ws.stream());
  }

 private:
  ArithmeticOperands ops_;
  std::vector<kernels::ArithSampleDesc> samples_;
};

SLUICE_REGISTER_OPERATOR("_arithmetic", OpDevice::kGPU, ArithmeticGpu);

}  // namespace
}  // namespace sluice
