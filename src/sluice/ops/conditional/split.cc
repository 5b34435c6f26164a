// _conditional.split: the samples of a batch divided between the two branches of an `if` on a
// DataNode, in order (Python's `if` with enable_conditionals inserts it; see
// python/sluice/_conditionals).

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/conditional/conditional_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("_conditional.split")
        .doc("Splits the batch by a predicate: the samples whose predicate is true go to the "
             "first output, the others to the second, each in its order.")
        .num_inputs(1, 1)
        .input_doc("input", "The batch to split.")
        .num_outputs(2)
        .output_names({"true", "false"})
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .required_arg("predicate", ArgType::kBool,
                      "One scalar per sample (non-zero is true), as an argument input.", true)
        .internal());

class SplitCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const auto copies = prepare_split(ws);
    ws.for_each_sample([&](int i, int) { kernels::copy_sample_cpu(copies[i]); },
                       inline_below(ws.input(0)));
  }
};

SLUICE_REGISTER_OPERATOR("_conditional.split", OpDevice::kCPU, SplitCpu);

}  // namespace
}  // namespace sluice
