// _conditional.merge on the GPU: one launch copies every sample into place.

#include <algorithm>

#include "sluice/ops/conditional/merge.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class MergeGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const auto copies = prepare_merge(ws);
    int64_t max_bytes = 0;
    for (const auto& c : copies) max_bytes = std::max(max_bytes, c.bytes);
    kernels::copy_samples_gpu(upload_->upload(copies, ws.stream()), static_cast<int>(copies.size()),
                              max_bytes, ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("_conditional.merge", OpDevice::kGPU, MergeGpu);

}  // namespace
}  // namespace sluice
