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
    const TensorList& in = ws.input(0);
    const std::vector<bool> pred = read_predicate(ws);
    const TensorList* parts[2] = {&ws.output(0), &ws.output(1)};
    for (int b = 0; b < 2; ++b) {
      ws.output(b).resize(shapes_where(in, pred, b == 0), in.dtype());
      ws.output(b).set_layout(in.layout());
    }
    const auto copies = branch_copies(pred, in, parts, false);
    int64_t max_bytes = 0;
    for (const auto& c : copies) max_bytes = std::max(max_bytes, c.bytes);
    kernels::copy_samples_gpu(upload_->upload(copies, ws.stream()), static_cast<int>(copies.size()),
                              max_bytes, ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("_conditional.split", OpDevice::kGPU, SplitGpu);

}  // namespace
}  // namespace sluice
