// filter on the GPU: one launch per batch; the filters and fill values are read where they are,
// in device memory.

#include <algorithm>

#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/filter.h"

namespace sluice {
namespace {

class FilterGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    FilterPlan plan = plan_filter(ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(plan.out_shapes, plan.out_type);
    out.set_layout(in.layout());
    int64_t max_elements = 0;
    for (int i = 0; i < in.num_samples(); ++i) {
      plan.samples[i].in = in.raw_sample(i);
      plan.samples[i].out = out.raw_sample(i);
      max_elements = std::max(max_elements, plan.samples[i].out_volume());
    }
    if (in.num_samples() == 0) return;
    const auto* dev = upload_->upload(plan.samples, ws.stream());
    kernels::conv::filter_gpu(dev, in.num_samples(), max_elements, plan.in_type, plan.out_type,
                              ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("filter", OpDevice::kGPU, FilterGpu);

}  // namespace
}  // namespace sluice
