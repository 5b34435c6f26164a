// cat: Joins the inputs along an existing axis; their shapes may differ only in that axis. The GPU
// class is in cat_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/join.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    join_args(OpSchema("cat").doc("Joins the inputs along an existing axis; their shapes may "
                                  "differ only in that axis."),
              "The axis, as a name in the inputs' layout."));

class CatCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    TensorList& out = ws.output(0);
    const std::vector<kernels::JoinPiece> pieces = plan_join(spec_, ws, out, false);
    for (const kernels::JoinPiece& p : pieces) kernels::join_cpu(p);
  }
};

SLUICE_REGISTER_OPERATOR("cat", OpDevice::kCPU, CatCpu);

}  // namespace
}  // namespace sluice
