// "_arithmetic" on the GPU: one kernel launch per batch.

#include "sluice/kernels/elementwise/elementwise_gpu.h"
#include "sluice/ops/generic/arithmetic_op.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class ArithmeticGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    ArithmeticPlan plan = plan_arithmetic(spec_, ws);
    const TensorList& a = ws.input(0);
    const TensorList* b = ws.num_inputs() > 1 ? &ws.input(1) : nullptr;
    TensorList& out = ws.output(0);
    out.resize(plan.shapes, plan.params.result);
    out.set_layout(a.layout());
    std::vector<kernels::ElementwiseSample> s(out.num_samples());
    int64_t max_n = 0;
    for (int i = 0; i < out.num_samples(); ++i) {
      int64_t n = volume(plan.shapes[i]);
      s[i] = {out.raw_sample(i), a.raw_sample(i), b ? b->raw_sample(i) : nullptr, n,
              plan.a_step[i],    plan.b_step[i]};
      max_n = std::max(max_n, n);
    }
    kernels::arithmetic_gpu(plan.params, upload_->upload(s, ws.stream()), out.num_samples(), max_n,
                            ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("_arithmetic", OpDevice::kGPU, ArithmeticGpu);

}  // namespace
}  // namespace sluice
