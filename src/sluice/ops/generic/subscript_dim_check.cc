// "_subscript_dim_check": DataNode indexing with full ranges only (x[:, :]): checks that the
// input has enough dimensions and passes it through (the output views the input's memory, so
// one class serves both devices).

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/reshape.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(OpSchema("_subscript_dim_check")
                           .doc("Checks that the input has at least `num_subscripts` dimensions "
                                "and passes it through (indexing with full ranges only).")
                           .num_inputs(1, 1)
                           .devices({OpDevice::kCPU, OpDevice::kGPU})
                           .required_arg("num_subscripts", ArgType::kInt,
                                         "The number of subscripts.")
                           .internal());

class SubscriptDimCheckOp : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const int n = spec_.arg<int>("num_subscripts");
    SLUICE_CHECK(n <= in.sample_ndim(), InvalidArgument, "Too many indices (", n, ") for a ",
                 in.sample_ndim(), "-D tensor.");
    TensorList& out = ws.output(0);
    view_as(in, out, in.shapes(), in.dtype());
    out.set_layout(in.layout());
  }
};

SLUICE_REGISTER_OPERATOR("_subscript_dim_check", OpDevice::kCPU, SubscriptDimCheckOp);
SLUICE_REGISTER_OPERATOR("_subscript_dim_check", OpDevice::kGPU, SubscriptDimCheckOp);

}  // namespace
}  // namespace sluice
