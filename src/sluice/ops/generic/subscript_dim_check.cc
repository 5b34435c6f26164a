// "_subscript_dim_check": DataNode indexing with full ranges only (x[:, :]): checks that the
// input has enough dimensions and passes it through. The GPU class calls only the CUDA facade,
// so it builds everywhere and lives here.

#include <cstring>

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

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

void check_dims(const OpSpec& spec, const TensorList& in) {
  const int n = spec.arg<int>("num_subscripts");
  SLUICE_CHECK(n <= in.sample_ndim(), InvalidArgument, "Too many indices (", n, ") for a ",
               in.sample_ndim(), "-D tensor.");
}

class SubscriptDimCheckCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    check_dims(spec_, in);
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), in.dtype());
    out.set_layout(in.layout());
    ws.for_each_sample(
        [&](int i, int) {
          if (in.sample_bytes(i)) {
            std::memcpy(out.raw_sample(i), in.raw_sample(i), in.sample_bytes(i));
          }
        },
        inline_below(in));
  }
};

class SubscriptDimCheckGpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    check_dims(spec_, ws.input(0));
    ws.output(0).copy_from(ws.input(0), ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("_subscript_dim_check", OpDevice::kCPU, SubscriptDimCheckCpu);
SLUICE_REGISTER_OPERATOR("_subscript_dim_check", OpDevice::kGPU, SubscriptDimCheckGpu);

}  // namespace
}  // namespace sluice
