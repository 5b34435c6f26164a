// GPU implementations of cast and "_arithmetic": one kernel launch per batch.

#include "sluice/kernels/elementwise/elementwise_gpu.h"
#include "sluice/memory/param_upload.h"
#include "sluice/exec/operator.h"
#include "sluice/ops/generic/arithmetic_op.h"

namespace sluice {
namespace {

class GpuElementwiseBase : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override {
    upload_ = std::make_unique<ParamUpload>(ctx.device_id);
  }

 protected:
  std::unique_ptr<ParamUpload> upload_;
};

class CastGpu : public GpuElementwiseBase {
 public:
  using GpuElementwiseBase::GpuElementwiseBase;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    DType to = parse_dtype(spec_.arg<std::string>("dtype"));
    out.resize(in.shapes(), to);
    out.set_layout(in.layout());
    std::vector<kernels::ElementwiseSample> s(in.num_samples());
    int64_t max_n = 0;
    for (int i = 0; i < in.num_samples(); ++i) {
      int64_t n = volume(in.shape(i));
      s[i] = {out.raw_sample(i), in.raw_sample(i), nullptr, n, 1, 0};
      max_n = std::max(max_n, n);
    }
    kernels::cast_gpu(upload_->upload(s, ws.stream()), in.num_samples(), max_n, to, in.dtype(),
                      ws.stream());
  }
};

class ArithmeticGpu : public GpuElementwiseBase {
 public:
  using GpuElementwiseBase::GpuElementwiseBase;
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

SLUICE_REGISTER_OPERATOR("cast", OpDevice::kGPU, CastGpu);
SLUICE_REGISTER_OPERATOR("_arithmetic", OpDevice::kGPU, ArithmeticGpu);

}  // namespace
}  // namespace sluice
