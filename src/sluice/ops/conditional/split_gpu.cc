// _conditional.split on the GPU: one launch copies every sample to its branch.

#include <algorithm>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/conditional/conditional_args.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class SplitGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const auto copies = prepare_split(ws);
    int64_t max_bytes = 0;
    for (const auto& c : copies) max_bytes = std::max(max_bytes, c.bytes);
    kernels::copy_samples_gpu(upload_->upload(copies, ws.stream()), static_cast<int>(copies.size()),
                              max_bytes, ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("_conditional.split", OpDevice::kGPU, SplitGpu);

}  // namespace
}  // namespace sluice
