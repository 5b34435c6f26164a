// "_tensor_subscript": DataNode indexing (x[1], x[:, ::-2], x[i] with a per-sample index).

#include "sluice/ops/generic/tensor_subscript.h"

#include <algorithm>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

OpSchema subscript_schema() {
  OpSchema s("_tensor_subscript");
  s.doc("Applies NumPy-like indexing to a batch of tensors (DataNode indexing).")
      .num_inputs(1, 1)
      .devices({OpDevice::kCPU, OpDevice::kGPU})
      .optional_arg("num_subscripts", ArgType::kInt,
                    "The number of subscripts, full-range ones included.")
      .internal();
  for (int i = 0; i < kMaxSubscripts; ++i) {
    const std::string n = std::to_string(i);
    s.optional_arg("at_" + n, ArgType::kInt, "Index in dimension " + n + ".", true)
        .optional_arg("lo_" + n, ArgType::kInt, "Start of the range in dimension " + n + ".", true)
        .optional_arg("hi_" + n, ArgType::kInt, "End of the range in dimension " + n + ".", true)
        .optional_arg("step_" + n, ArgType::kInt, "Step of the range in dimension " + n + ".",
                      true);
  }
  return s;
}
SLUICE_REGISTER_SCHEMA(subscript_schema());

class TensorSubscriptCpu : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override { args_ = parse_subscript_args(spec_); }
  void run(Workspace& ws) override {
    const SubscriptPlan plan = plan_subscript(args_, spec_, ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(plan.out_shapes, in.dtype());
    out.set_layout(plan.layout);
    ws.for_each_sample(
        [&](int i, int) {
          kernels::strided_copy_cpu(subscript_copy(plan, in, out, i), dtype_size(in.dtype()));
        },
        inline_below(in));
  }

 private:
  SubscriptArgs args_;
};

SLUICE_REGISTER_OPERATOR("_tensor_subscript", OpDevice::kCPU, TensorSubscriptCpu);

bool given(const OpSpec& spec, const std::string& name) {
  return spec.has_arg(name) || spec.arg_inputs.count(name);
}

// A subscript value of sample i: the constant, or the per-sample 0-D integer tensor's value.
int64_t subscript_value(const OpSpec& spec, const Workspace& ws, const std::string& name, int i) {
  const TensorList* t = ws.arg_input(name);
  if (!t) return spec.arg<int64_t>(name);
  SLUICE_CHECK(t->sample_ndim() == 0, InvalidArgument, "Array indices must be scalar (0D). Got ",
               t->sample_ndim(), "D tensor.");
  SLUICE_CHECK(dtype_is_integral(t->dtype()) && t->dtype() != DType::kBool, InvalidArgument,
               "Array index must be of integral type. Got: ", dtype_name(t->dtype()));
  return dtype_dispatch(t->dtype(), [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      return static_cast<int64_t>(*t->sample<T>(i));
    } else {
      return 0;
    }
  });
}

// DALI's shape print: "2 x 3 x 4".
std::string dali_shape(const Shape& s) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) out += (k ? " x " : "") + std::to_string(s[k]);
  return out;
}

int64_t div_ceil(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

SubscriptArgs parse_subscript_args(const OpSpec& spec) {
  SubscriptArgs a;
  a.subs.resize(kMaxSubscripts);
  int last = -1;
  for (int i = 0; i < kMaxSubscripts; ++i) {
    SubscriptArgs::Sub& s = a.subs[i];
    const std::string n = std::to_string(i);
    s.at = "at_" + n, s.lo = "lo_" + n, s.hi = "hi_" + n, s.step = "step_" + n;
    s.index = given(spec, s.at);
    s.range = given(spec, s.lo) || given(spec, s.hi) || given(spec, s.step);
    SLUICE_CHECK(!(s.index && s.range), InvalidArgument, "The subscript for dimension ", i,
                 " must not be specified both as an index and as a range.");
    if (s.index || s.range) last = i;
  }
  a.subs.resize(last + 1);
  a.declared = spec.has_arg("num_subscripts") ? spec.arg<int>("num_subscripts") : last + 1;
  SLUICE_CHECK(a.declared >= last + 1, InvalidArgument, "num_subscripts (", a.declared,
               ") is fewer than the subscripts given (", last + 1, ")");
  return a;
}

SubscriptPlan plan_subscript(const SubscriptArgs& args, const OpSpec& spec, const Workspace& ws) {
  const TensorList& in = ws.input(0);
  const int ndim = in.sample_ndim();
  SLUICE_CHECK(ndim > 0, InvalidArgument, "Cannot apply an index to a scalar.");
  SLUICE_CHECK(ndim >= args.declared, InvalidArgument, "Too many indices (", args.declared,
               ") for a ", ndim, "D tensor.");
  const int n = ws.batch_size();
  SubscriptPlan p;
  p.start.assign(n, Shape(ndim, 0));
  p.step.assign(n, Shape(ndim, 1));
  p.extent = in.shapes();
  for (int d = 0; d < static_cast<int>(args.subs.size()); ++d) {
    const SubscriptArgs::Sub& s = args.subs[d];
    for (int i = 0; i < n && (s.index || s.range); ++i) {
      const int64_t len = in.shape(i)[d];
      if (s.index) {
        const int64_t at = subscript_value(spec, ws, s.at, i);
        const int64_t idx = at < 0 ? len + at : at;
        SLUICE_CHECK(idx >= 0 && idx < len, InvalidArgument, "Index ", at,
                     " is out of range for axis ", d, " of length ", len,
                     "\nDetected while processing sample #", i, " of shape (",
                     dali_shape(in.shape(i)), ")");
        p.start[i][d] = idx;
        p.extent[i][d] = 1;
        continue;
      }
      const bool has_step = given(spec, s.step);
      const int64_t step = has_step ? subscript_value(spec, ws, s.step, i) : 1;
      SLUICE_CHECK(step != 0, InvalidArgument, "Step cannot be zero. Detected step == 0 at axis ",
                   d, " while processing sample #", i);
      // Python's slice: the defaults depend on the direction; negative bounds count from the end.
      int64_t lo = given(spec, s.lo) ? subscript_value(spec, ws, s.lo, i) : (step > 0 ? 0 : -1);
      int64_t hi =
          given(spec, s.hi) ? subscript_value(spec, ws, s.hi, i) : (step > 0 ? len : -1 - len);
      if (len > 0) {
        if (lo < 0) lo += len;
        if (hi < 0) hi += len;
        const int64_t min = step > 0 ? 0 : -1, max = step > 0 ? len : len - 1;
        lo = std::clamp(lo, min, max);
        hi = std::clamp(hi, min, max);
      } else {
        lo = hi = 0;
      }
      const int64_t ext = step > 0 ? div_ceil(hi - lo, step) : div_ceil(lo - hi, -step);
      p.start[i][d] = lo;
      p.step[i][d] = step;
      p.extent[i][d] = std::max<int64_t>(ext, 0);
    }
  }
  std::vector<int> out_dims;
  for (int d = 0; d < ndim; ++d) {
    if (d >= static_cast<int>(args.subs.size()) || !args.subs[d].index) out_dims.push_back(d);
  }
  p.out_shapes.resize(n);
  for (int i = 0; i < n; ++i) {
    for (int d : out_dims) p.out_shapes[i].push_back(p.extent[i][d]);
  }
  if (!in.layout().empty()) {
    for (int d : out_dims) p.layout += in.layout()[d];
  }
  return p;
}

kernels::StridedCopyDesc subscript_copy(const SubscriptPlan& plan, const TensorList& in,
                                        TensorList& out, int i) {
  kernels::StridedCopyDesc d;
  SLUICE_CHECK(
      kernels::describe_strided_copy(d, out.raw_sample(i), in.raw_sample(i), dtype_size(in.dtype()),
                                     in.shape(i), plan.start[i], plan.step[i], plan.extent[i]),
      InvalidArgument,
      "Subscript too complex.\nThe subscript operator supports up to 32 total and up to ",
      kernels::kMaxCopyDims,
      " non-collapsible dimensions.\nAdjacent dimensions from which no index or slice is "
      "taken can be collapsed.");
  return d;
}

}  // namespace sluice
