#include "sluice/memory/param_upload.h"
#include "sluice/ops/random/random_op.h"

namespace sluice {

void RandomGpu::setup(const OpContext& ctx) {
  GpuOperator::setup(ctx);
  values_ = std::make_unique<ParamUpload>(ctx.device_id);
}

void RandomGpu::run(Workspace& ws) {
  RandomPlan plan = plan_random(spec_, ws);
  TensorList& out = ws.output(0);
  out.resize(plan.shapes, plan.dtype);
  std::vector<kernels::RandomSample> s;
  int64_t max_n = 0;
  for (int i = 0; i < ws.batch_size(); ++i) {
    int64_t n = volume(plan.shapes[i]);
    s.push_back(plan.sample(i, out.raw_sample(i), ws.rng(i)));
    max_n = std::max(max_n, n);
  }
  const float* values = plan.values.empty() ? nullptr : values_->upload(plan.values, ws.stream());
  kernels::random_gpu(plan.dist, upload_->upload(s, ws.stream()), ws.batch_size(), max_n,
                      plan.dtype, values, ws.stream());
}

SLUICE_REGISTER_OPERATOR("random.coin_flip", OpDevice::kGPU, RandomGpu);
SLUICE_REGISTER_OPERATOR("random.normal", OpDevice::kGPU, RandomGpu);
SLUICE_REGISTER_OPERATOR("random.uniform", OpDevice::kGPU, RandomGpu);

}  // namespace sluice
