// _conditional.merge: the outputs of the two branches of an `if` on a DataNode put back into one
// batch in sample order (the inverse of _conditional.split with the same predicate).

#include "sluice/ops/conditional/merge.h"

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

namespace sluice {

std::vector<kernels::SampleCopy> prepare_merge(Workspace& ws) {
  const std::vector<bool> pred = read_predicate(ws);
  const TensorList* in[2] = {&ws.input(0), &ws.input(1)};
  int count[2] = {0, 0};
  for (bool p : pred) ++count[p ? 0 : 1];
  for (int b = 0; b < 2; ++b) {
    SLUICE_CHECK(in[b]->num_samples() == count[b], InvalidArgument, "the predicate selects ",
                 count[b], " samples of the ", b == 0 ? "true" : "false", " branch, which has ",
                 in[b]->num_samples());
  }
  // An empty branch has no type of its own: the other one decides (DALI's rule).
  const TensorList& base = *in[in[0]->num_samples() > 0 ? 0 : 1];
  const TensorList& other = *in[in[0]->num_samples() > 0 ? 1 : 0];
  if (other.num_samples() > 0) {
    const char* divergent =
        "Divergent data found in different branches of conditional operation. All paths in "
        "conditional operation are merged into one batch which must have consistent type, number "
        "of dimensions, layout and other metadata. ";
    SLUICE_CHECK(base.dtype() == other.dtype(), InvalidArgument, divergent,
                 "Found distinct types: ", dali_type_name(base.dtype()), " and ",
                 dali_type_name(other.dtype()), ".");
    SLUICE_CHECK(base.sample_ndim() == other.sample_ndim(), InvalidArgument, divergent,
                 "Found distinct sample dimensions: ", base.sample_ndim(), " and ",
                 other.sample_ndim(), ".");
    SLUICE_CHECK(base.layout() == other.layout(), InvalidArgument, divergent,
                 "Found distinct layouts: \"", base.layout(), "\" and \"", other.layout(), "\".");
  }
  std::vector<Shape> shapes(pred.size());
  int next[2] = {0, 0};
  for (size_t i = 0; i < pred.size(); ++i) {
    const int b = pred[i] ? 0 : 1;
    shapes[i] = in[b]->shape(next[b]++);
  }
  TensorList& out = ws.output(0);
  out.resize(std::move(shapes), base.dtype());
  out.set_layout(base.layout());
  return branch_copies(pred, out, in, true);
}

namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("_conditional.merge")
        .doc("Merges the batches of the two branches by a predicate: sample i comes from the next "
             "sample of the first input where its predicate is true, else of the second.")
        .num_inputs(2, 2)
        .input_doc("true", "The samples whose predicate is true, in order.")
        .input_doc("false", "The samples whose predicate is false, in order.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .required_arg("predicate", ArgType::kBool,
                      "One scalar per output sample (non-zero is true), as an argument input.",
                      true)
        .uneven_inputs()
        .internal());

class MergeCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const auto copies = prepare_merge(ws);
    ws.for_each_sample([&](int i, int) { kernels::copy_sample_cpu(copies[i]); },
                       inline_below(ws.output(0)));
  }
};

SLUICE_REGISTER_OPERATOR("_conditional.merge", OpDevice::kCPU, MergeCpu);

}  // namespace
}  // namespace sluice
