// _conditional.validate_logical: passes an operand of `and` / `or` on DataNodes through after
// checking that it is what Python's logic needs, a bool scalar per sample (DALI's error texts).

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/conditional/conditional_args.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("_conditional.validate_logical")
        .doc("Checks an operand of a logical `and` / `or`: bool scalars (0-d) on the CPU; passes "
             "it through.")
        .num_inputs(1, 1)
        .input_doc("input", "The operand.")
        .required_arg("expression_name", ArgType::kString, "`and` or `or`.")
        .required_arg("expression_side", ArgType::kString, "`left` or `right`.")
        .internal());

class ValidateLogicalCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const std::string prefix =
        make_string("Logical expression `", spec_.arg<std::string>("expression_name"),
                    "` is restricted to scalar (0-d tensors) inputs of `bool` type, that are "
                    "placed on CPU. Got ");
    const std::string side = spec_.arg<std::string>("expression_side");
    check_scalar_samples(in, make_string(prefix, "a ", in.sample_ndim(), "-d input as the ", side,
                                         " argument in logical expression."));
    if (in.dtype() != DType::kBool) {
      throw InvalidArgument(make_string(prefix, "an input of type `", dali_type_name(in.dtype()),
                                        "` as the ", side, " argument in logical expression.",
                                        kLogicalRestriction));
    }
    ws.output(0) = in;  // shares the samples: nothing is computed
  }
};

SLUICE_REGISTER_OPERATOR("_conditional.validate_logical", OpDevice::kCPU, ValidateLogicalCpu);

}  // namespace
}  // namespace sluice
