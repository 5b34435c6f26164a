// permute_batch on the GPU: one launch copies every sample.

#include <algorithm>

#include "sluice/ops/generic/permute_batch.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class PermuteBatchGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const auto copies = plan_permute_batch(ws);
    int64_t max_bytes = 0;
    for (const auto& c : copies) max_bytes = std::max(max_bytes, c.bytes);
    if (max_bytes == 0) return;
    kernels::copy_samples_gpu(upload_->upload(copies, ws.stream()), static_cast<int>(copies.size()),
                              max_bytes, ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("permute_batch", OpDevice::kGPU, PermuteBatchGpu);

}  // namespace
}  // namespace sluice
