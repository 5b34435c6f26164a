// filter: correlates each sample with a per-sample 2-D (or 3-D) float kernel, as OpenCV's
// filter2D, which DALI's CPU operator calls. The GPU class is in filter_gpu.cc.

#include "sluice/ops/image/filter.h"

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

namespace sluice {

FilterPlan plan_filter(Workspace& ws) {
  const OpSpec& spec = ws.spec();
  const TensorList& in = ws.input(0);
  const TensorList& kernel = ws.input(1);
  const TensorList* fill = ws.num_inputs() > 2 ? &ws.input(2) : nullptr;
  FilterPlan plan;
  plan.in_type = in.dtype();
  SLUICE_CHECK(kernels::conv::filter_type_supported(in.dtype()), InvalidArgument,
               "Filter does not support input type ", dtype_name(in.dtype()),
               "; use UINT8, UINT16, INT16 or FLOAT.");
  plan.out_type = conv_output_type(spec, in.dtype());
  SLUICE_CHECK(kernel.dtype() == DType::kFloat32, InvalidArgument,
               "The filter must be of FLOAT type, got ", dtype_name(kernel.dtype()));
  if (fill) {
    SLUICE_CHECK(fill->dtype() == in.dtype(), InvalidArgument,
                 "The fill value must be of the input's type (", dtype_name(in.dtype()), "), got ",
                 dtype_name(fill->dtype()));
  }
  const ConvLayout layout = parse_conv_layout(in);
  SLUICE_CHECK(layout.axes == 2 || layout.axes == 3, InvalidArgument,
               "Unsupported input data dimensionality. Got input with ", layout.axes,
               " spatial dimensions; filter takes 2 or 3.");
  const auto border = kernels::conv::parse_border(spec.arg<std::string>("border"));
  const std::string mode = spec.arg<std::string>("mode");
  SLUICE_CHECK(mode == "same" || mode == "valid", InvalidArgument,
               "mode must be 'same' or 'valid', got '", mode, "'");
  const int n = in.num_samples();
  plan.samples.resize(n);
  for (int i = 0; i < n; ++i) {
    const Shape& ks = kernel.shape(i);
    SLUICE_CHECK(static_cast<int>(ks.size()) == layout.axes, InvalidArgument, "sample ", i,
                 ": the filter must have ", layout.axes, " dimensions (one per spatial axis), got ",
                 shape_to_string(ks));
    const auto sep = separable_shape(in.shape(i), layout);
    auto& s = plan.samples[i];
    s.axes = layout.axes;
    s.outer = sep.outer;
    s.channels = sep.channels;
    s.border = border;
    s.kernel = kernel.sample<float>(i);
    s.fill = fill ? fill->raw_sample(i) : nullptr;
    if (fill) {
      SLUICE_CHECK(volume(fill->shape(i)) == 1, InvalidArgument, "sample ", i,
                   ": the fill value must be a scalar");
    }
    const auto anchor = per_axis<int>(ws, "anchor", i, layout.axes);
    Shape out_shape = in.shape(i);
    for (int a = 0; a < layout.axes; ++a) {
      s.in_extent[a] = sep.extent[a];
      s.k_extent[a] = static_cast<int32_t>(ks[a]);
      SLUICE_CHECK(ks[a] >= 1, InvalidArgument, "sample ", i, ": the filter is empty");
      SLUICE_CHECK(anchor[a] >= -1 && anchor[a] < ks[a], InvalidArgument,
                   "Anchor must lie within the filter. Got anchor ", anchor[a], " for axis ", a,
                   " with a filter of shape ", shape_to_string(ks), " for sample of idx ", i, ".");
      if (mode == "valid") {
        s.anchor[a] = 0;
        s.out_extent[a] = sep.extent[a] - ks[a] + 1;
        SLUICE_CHECK(s.out_extent[a] >= 1, InvalidArgument, "sample ", i,
                     ": in 'valid' mode the filter (", shape_to_string(ks),
                     ") must not be larger than the sample");
      } else {
        s.anchor[a] = anchor[a] < 0 ? static_cast<int32_t>(ks[a] / 2) : anchor[a];
        s.out_extent[a] = sep.extent[a];
      }
      out_shape[layout.outer_dims + a] = s.out_extent[a];
    }
    plan.out_shapes.push_back(out_shape);
  }
  return plan;
}

namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("filter")
        .doc("Correlates each sample with a filter (the kernel is not flipped), with the border "
             "handled as `border` says; OpenCV's filter2D arithmetic.")
        .alias("experimental.filter")
        .num_inputs(2, 3)
        .input_doc("data",
                   "Data with 2 (or 3) spatial axes, optional leading F / C axes and a "
                   "trailing C; UINT8, UINT16, INT16 or FLOAT.")
        .input_doc("filter", "Per sample, a FLOAT kernel with one dimension per spatial axis.")
        .input_doc("fill_value",
                   "Optional: per sample, a scalar of the data's type for "
                   "border='constant' (0 by default).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("anchor", ArgType::kIntList, std::vector<int64_t>{-1},
             "The filter tap over the output position, per axis; -1: the filter's middle.", true)
        .enum_arg("border", {"reflect_101", "reflect_1001", "wrap", "clamp", "constant"},
                  "reflect_101",
                  "Out-of-bounds positions: reflect_101 (dcb|abcd), reflect_1001 (cba|abcd), "
                  "wrap (bcd|abcd), clamp (aaa|abcd), constant (the fill value).")
        .enum_arg("mode", {"same", "valid"}, "same",
                  "same: output of the input's size; valid: only the positions where the filter "
                  "lies within the sample (the anchor is then ignored).")
        .optional_arg("dtype", ArgType::kDType, "Output type: the input's (default) or FLOAT."));

class FilterCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    FilterPlan plan = plan_filter(ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(plan.out_shapes, plan.out_type);
    out.set_layout(in.layout());
    ws.for_each_sample(
        [&](int i, int) {
          auto s = plan.samples[i];
          s.in = in.raw_sample(i);
          s.out = out.raw_sample(i);
          kernels::conv::filter_cpu(s, plan.in_type, plan.out_type);
        },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("filter", OpDevice::kCPU, FilterCpu);

}  // namespace
}  // namespace sluice
