// pad: extends samples at their end with a fill value, to the batch's largest extent along the
// chosen axes or to at least `shape`, rounded up to `align`. The GPU class is in pad_gpu.cc.

#include "sluice/ops/generic/pad.h"

#include <algorithm>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/axes_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("pad")
        .doc("Pads each sample at the end of the axes `axes` or `axis_names` (all by default) "
             "with `fill_value`, to the largest extent in the batch or to at least `shape`, "
             "rounded up to a multiple of `align`.")
        .num_inputs(1, 1)
        .input_doc("input", "Data of any type with at least one dimension.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .optional_arg("axes", ArgType::kIntList,
                      "Axes to pad, as indices (negative: from the back).", true)
        .optional_arg("axis_names", ArgType::kString, "Axes to pad, as layout letters.")
        .optional_arg("shape", ArgType::kIntList,
                      "Minimum extents of the padded axes; -1 (or any value below 1) pads to "
                      "the batch's largest extent.",
                      true)
        .optional_arg("align", ArgType::kIntList,
                      "The padded extents are rounded up to multiples of these (one value for "
                      "all axes, or one per axis).",
                      true)
        .arg("fill_value", ArgType::kFloat, 0.0, "The value to pad with.", true));

// A per-axis argument of sample i: one value for all axes or one per axis.
std::vector<int64_t> per_axis(const Workspace& ws, const char* name, size_t n, int i) {
  std::vector<int64_t> v = ws.arg_list<int64_t>(name, i);
  if (v.size() == 1 && n != 1) v.assign(n, v[0]);
  SLUICE_CHECK(v.size() == n, InvalidArgument, "Argument \"", name, "\" expected shape ", n,
               " but got ", v.size(), " values, which can't be interpreted as the expected shape.");
  return v;
}

bool given(const OpSpec& spec, const Workspace& ws, const char* name) {
  return spec.has_arg(name) || ws.arg_input(name) != nullptr;
}

class PadCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const PadPlan plan = plan_pad(spec_, ws);
    TensorList& out = ws.output(0);
    out.resize(plan.out_shapes, in.dtype());
    out.set_layout(in.layout());
    const size_t es = dtype_size(in.dtype());
    ws.for_each_sample(
        [&](int i, int) {
          kernels::slice_cpu(pad_desc(plan, in, out, i, plan.fill.data() + i * es), in.dtype(),
                             in.dtype(), kernels::SliceBorder::kConstant);
        },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("pad", OpDevice::kCPU, PadCpu);

}  // namespace

PadPlan plan_pad(const OpSpec& spec, const Workspace& ws) {
  const TensorList& in = ws.input(0);
  const int ndim = in.sample_ndim(), n = ws.batch_size();
  SLUICE_CHECK(ndim >= 1, InvalidArgument, "Unsupported number of dimensions ", ndim);
  SLUICE_CHECK(!given(spec, ws, "axes") || !spec.has_arg("axis_names"), InvalidArgument,
               "\"axes\" and \"axis_names\" are mutually exclusive");
  PadPlan p;
  p.out_shapes = in.shapes();
  p.fill.resize(n * dtype_size(in.dtype()));
  std::vector<int> axes;
  if (spec.has_arg("axis_names"))
    axes = axes_from_names(in.layout(), spec.arg<std::string>("axis_names"));
  for (int i = 0; i < n; ++i) {
    std::vector<int> a = axes;
    if (given(spec, ws, "axes")) a = resolve_axes(ws.arg_list<int64_t>("axes", i), ndim);
    if (a.empty()) {
      for (int d = 0; d < ndim; ++d) a.push_back(d);
    }
    const std::vector<int64_t> shape = given(spec, ws, "shape")
                                           ? per_axis(ws, "shape", a.size(), i)
                                           : std::vector<int64_t>(a.size(), -1);
    const std::vector<int64_t> align = given(spec, ws, "align") ? per_axis(ws, "align", a.size(), i)
                                                                : std::vector<int64_t>(a.size(), 1);
    for (size_t k = 0; k < a.size(); ++k) {
      SLUICE_CHECK(align[k] > 0, InvalidArgument, "Values of `align` argument must be positive.");
      int64_t ext = p.out_shapes[i][a[k]];
      if (shape[k] > 0) {
        ext = std::max(ext, shape[k]);
      } else {
        for (int j = 0; j < n; ++j) ext = std::max(ext, in.shape(j)[a[k]]);
      }
      p.out_shapes[i][a[k]] = (ext + align[k] - 1) / align[k] * align[k];
    }
    kernels::slice_fill_value(ws.arg<double>("fill_value", i), in.dtype(),
                              p.fill.data() + i * dtype_size(in.dtype()));
  }
  return p;
}

kernels::SliceDesc pad_desc(const PadPlan& plan, const TensorList& in, TensorList& out, int i,
                            const void* fill) {
  kernels::SliceDesc d;
  d.out = out.raw_sample(i);
  d.in = in.raw_sample(i);
  d.ndim = in.sample_ndim();
  SLUICE_CHECK(d.ndim <= kernels::kMaxSliceDims, InvalidArgument, "pad of ", d.ndim,
               " dimensions (at most ", kernels::kMaxSliceDims, ")");
  for (int k = 0; k < d.ndim; ++k) {
    d.in_shape[k] = in.shape(i)[k];
    d.out_shape[k] = plan.out_shapes[i][k];
  }
  d.fill = fill;
  return d;
}

}  // namespace sluice
