// slice: a window of each sample, from named arguments or anchor and shape inputs, with DALI's
// out-of-bounds policies. Windows inside the input are strided copies; the rest goes through the
// slice kernel. The GPU class is in slice_gpu.cc.

#include "sluice/ops/generic/slice.h"

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

OpSchema slice_schema() {
  OpSchema s("slice");
  s.doc(
       "Extracts a slice of each sample, given by `start` / `rel_start` and `end` / `rel_end` / "
       "`shape` / `rel_shape`, or by the anchor and shape inputs, over the dimensions `axes` or "
       "`axis_names` name.")
      .num_inputs(1, 3)
      .input_doc("data", "Batch that contains the input data (1 to 4 dimensions).")
      .input_doc("anchor",
                 "Optional: per-sample start of the slice (int32, int64 or float; "
                 "float is relative when `normalized_anchor`).")
      .input_doc("shape",
                 "Optional: per-sample extent of the slice (same type as the anchor; "
                 "float is relative when `normalized_shape`).")
      .devices({OpDevice::kCPU, OpDevice::kGPU})
      .cpu_inputs_from(1, true)
      .arg("axes", ArgType::kIntList, std::vector<int64_t>{1, 0},
           "Dimensions of the slice arguments, as indices (negative: from the back); used when "
           "given and `axis_names` is not.",
           true)
      .arg("axis_names", ArgType::kString, std::string("WH"),
           "Dimensions of the slice arguments, as layout letters (empty: all dimensions).")
      .optional_arg("start", ArgType::kIntList, "Start coordinates of the slice.", true)
      .optional_arg("rel_start", ArgType::kFloatList, "Relative start coordinates (0 to 1).", true)
      .optional_arg("end", ArgType::kIntList, "End coordinates of the slice.", true)
      .optional_arg("rel_end", ArgType::kFloatList, "Relative end coordinates (0 to 1).", true)
      .optional_arg("shape", ArgType::kIntList, "Shape of the slice.", true)
      .optional_arg("rel_shape", ArgType::kFloatList, "Relative shape of the slice (0 to 1).", true)
      .arg("normalized_anchor", ArgType::kBool, true,
           "A float anchor input is relative (fractions of the extent).")
      .arg("normalized_shape", ArgType::kBool, true,
           "A float shape input is relative (fractions of the extent).")
      .arg("out_of_bounds_policy", ArgType::kString, std::string("error"),
           "What a window reaching outside the input does: error, pad / constant (fill_values), "
           "edge / clamp, reflect / reflect_1001, reflect_101, wrap or trim_to_shape.")
      .arg("fill_values", ArgType::kFloatList, std::vector<double>{0.0},
           "Padding values: one, or one per channel (dimension C of the layout).")
      .optional_arg("dtype", ArgType::kDType,
                    "Output type: FLOAT, FLOAT16 or UINT8 (default: the input's).")
      .optional_arg("output_dtype", ArgType::kDType, "Legacy name of `dtype`.");
  return s;
}
SLUICE_REGISTER_SCHEMA(slice_schema());

class SliceCpu : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override { args_ = parse_slice_args(spec_); }
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const bool positional = ws.num_inputs() == 3;
    plan_slice(args_, spec_, ws, positional ? &ws.input(1) : nullptr,
               positional ? &ws.input(2) : nullptr, plan_);
    const SlicePlan& plan = plan_;
    TensorList& out = ws.output(0);
    out.resize(plan.out_shapes, plan.out_type);
    out.set_layout(in.layout());
    ws.for_each_sample(
        [&](int i, int) {
          if (slice_is_copy(plan, in, i)) {
            kernels::strided_copy_cpu(slice_copy_desc(plan, in, out, i), dtype_size(in.dtype()));
          } else {
            kernels::slice_cpu(slice_desc(plan, in, out, i, plan.fill.data()), in.dtype(),
                               plan.out_type, args_.border);
          }
        },
        inline_below(in));
  }

 private:
  SliceArgs args_;
  SlicePlan plan_;
};

SLUICE_REGISTER_OPERATOR("slice", OpDevice::kCPU, SliceCpu);

}  // namespace
}  // namespace sluice
