// cat on the GPU: a 2D copy per sample and input.

#include "sluice/ops/generic/join.h"

namespace sluice {
namespace {

class CatGpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    TensorList& out = ws.output(0);
    kernels::join_gpu(plan_join(spec_, ws, out, false), ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("cat", OpDevice::kGPU, CatGpu);

}  // namespace
}  // namespace sluice
