// _conditional.not_: Python's `not` on a DataNode with enable_conditionals, per sample.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/conditional/conditional_args.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("_conditional.not_")
        .doc("Logical `not` of each sample: a scalar (0-d) on the CPU, of any type (non-zero is "
             "true); the result is a bool.")
        .num_inputs(1, 1)
        .input_doc("input", "Scalar samples.")
        .internal());

class NotCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    check_scalar_samples(in, make_string("Logical expression `not` is restricted to scalar (0-d "
                                         "tensors) inputs, that are placed on CPU. Got a ",
                                         in.sample_ndim(), "-d input in logical expression."));
    TensorList& out = ws.output(0);
    out.resize_uniform(in.num_samples(), {}, DType::kBool);
    for (int i = 0; i < in.num_samples(); ++i) {
      out.sample<bool>(i)[0] = tensor_scalar<double>(in, i) == 0;
    }
  }
};

SLUICE_REGISTER_OPERATOR("_conditional.not_", OpDevice::kCPU, NotCpu);

}  // namespace
}  // namespace sluice
