// one_hot: a one-hot encoding of class indices along a new axis. The GPU class is in
// one_hot_gpu.cc; the arguments are read in lookup_args.cc.

#include <string>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/lookup_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("one_hot")
        .doc("Produces a one-hot encoding of the input: a new axis of `num_classes` elements, "
             "`on_value` at the input's class (its value truncated to an integer) and "
             "`off_value` elsewhere. Samples of one element each are scalars (the output has "
             "the new axis only) unless `axis` is given.")
        .num_inputs(1, 1)
        .input_doc("input", "Class indices (integers or floating-point values).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("num_classes", ArgType::kInt, int64_t{0}, "Number of all classes in the data.")
        .arg("axis", ArgType::kInt, int64_t{-1},
             "Where the new axis goes; -1 appends it as the last dimension.")
        .optional_arg("axis_name", ArgType::kString,
                      "A single character naming the new axis in the output layout; without it "
                      "the output layout is empty.")
        .arg("dtype", ArgType::kDType, std::string("FLOAT"), "Output data type.")
        .arg("on_value", ArgType::kFloat, 1.0,
             "The value at the input's class (cast to `dtype`, truncated toward zero).")
        .arg("off_value", ArgType::kFloat, 0.0,
             "The value at the other classes (cast to `dtype`, truncated toward zero)."));

class OneHotCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    OneHotPlan p = plan_one_hot(spec_, in);
    TensorList& out = ws.output(0);
    out.resize(p.out_shapes, p.out_type);
    out.set_layout(p.layout);
    ws.for_each_sample(
        [&](int i, int) {
          kernels::one_hot_cpu({in.raw_sample(i), out.raw_sample(i), p.outer[i], p.inner[i]},
                               p.params);
        },
        inline_below(out));
  }
};

SLUICE_REGISTER_OPERATOR("one_hot", OpDevice::kCPU, OneHotCpu);

}  // namespace
}  // namespace sluice
