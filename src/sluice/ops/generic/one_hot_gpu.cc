// one_hot on the GPU: one launch per batch.

#include <algorithm>

#include "sluice/ops/generic/lookup_args.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class OneHotGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    OneHotPlan p = plan_one_hot(spec_, in);
    TensorList& out = ws.output(0);
    out.resize(p.out_shapes, p.out_type);
    out.set_layout(p.layout);
    std::vector<kernels::OneHotSample> desc(in.num_samples());
    int64_t max_out = 0;
    for (int i = 0; i < in.num_samples(); ++i) {
      desc[i] = {in.raw_sample(i), out.raw_sample(i), p.outer[i], p.inner[i]};
      max_out = std::max(max_out, volume(p.out_shapes[i]));
    }
    if (max_out == 0) return;
    kernels::one_hot_gpu(upload_->upload(desc, ws.stream()), in.num_samples(), max_out, p.params,
                         ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("one_hot", OpDevice::kGPU, OneHotGpu);

}  // namespace
}  // namespace sluice
