// element_extract on the GPU: one launch copies every frame of every output.

#include <algorithm>

#include "sluice/ops/generic/element_extract.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class ElementExtractGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    map_ = element_map(spec_);
  }
  void run(Workspace& ws) override {
    const auto copies = plan_element_extract(ws, map_);
    int64_t max_bytes = 0;
    for (const auto& c : copies) max_bytes = std::max(max_bytes, c.bytes);
    if (max_bytes == 0) return;
    kernels::copy_samples_gpu(upload_->upload(copies, ws.stream()), static_cast<int>(copies.size()),
                              max_bytes, ws.stream());
  }

 private:
  std::vector<int64_t> map_;
};

SLUICE_REGISTER_OPERATOR("element_extract", OpDevice::kGPU, ElementExtractGpu);

}  // namespace
}  // namespace sluice
