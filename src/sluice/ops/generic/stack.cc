// stack: Joins the inputs along a new axis; their shapes must be equal. The GPU class is in
// stack_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/join.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(join_args(
    OpSchema("stack").doc("Joins the inputs along a new axis; their shapes must be equal."),
    "The new axis's name in the output layout (without it, the output has no layout)."));

class StackCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    TensorList& out = ws.output(0);
    const std::vector<kernels::JoinPiece> pieces = plan_join(spec_, ws, out, true);
    for (const kernels::JoinPiece& p : pieces) kernels::join_cpu(p);
  }
};

SLUICE_REGISTER_OPERATOR("stack", OpDevice::kCPU, StackCpu);

}  // namespace
}  // namespace sluice
