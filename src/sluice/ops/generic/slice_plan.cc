// The windows of fn.slice (slice.h).

#include <algorithm>
#include <cmath>

#include "sluice/ops/generic/axes_args.h"
#include "sluice/ops/generic/slice.h"

namespace sluice {
namespace {

bool given(const OpSpec& spec, const Workspace* ws, const char* name) {
  return spec.has_arg(name) ||
         (ws ? ws->arg_input(name) != nullptr : spec.arg_inputs.count(std::string(name)) > 0);
}

// The layout the axis names refer to: the input's, else DALI's default for the dimensions.
Layout names_layout(const Layout& layout, int ndim) {
  if (!layout.empty()) return layout;
  switch (ndim) {
    case 2:
      return "HW";
    case 3:
      return "HWC";
    case 4:
      return "DHWC";
    default:
      return "";
  }
}

// The dimensions the slice arguments of sample i refer to.
std::vector<int> slice_axes(const OpSpec& spec, const Workspace& ws, const Layout& layout, int ndim,
                            int i) {
  std::vector<int> axes;
  if (spec.has_arg("axis_names") || !given(spec, &ws, "axes")) {
    const std::string names = spec.arg<std::string>("axis_names");
    if (!names.empty()) return axes_from_names(names_layout(layout, ndim), names);
  } else {
    axes = resolve_axes(ws.arg_list<int64_t>("axes", i), ndim);
    if (!axes.empty()) return axes;
  }
  for (int d = 0; d < ndim; ++d) axes.push_back(d);  // empty axes: all of them
  return axes;
}

// A named argument of sample i with one value per axis (a single value applies to all).
std::vector<double> named_values(const Workspace& ws, const std::string& name, size_t n, int i) {
  std::vector<double> v = ws.arg_list<double>(name, i);
  if (v.size() == 1 && n != 1) v.assign(n, v[0]);
  SLUICE_CHECK(v.size() == n, InvalidArgument, "Argument \"", name, "\" expected shape ", n,
               " but got ", v.size(), " values, which can't be interpreted as the expected shape.");
  return v;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// DALI's shape print: "4 x 5 x 3".
std::string dims(const Shape& s) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) out += (k ? " x " : "") + std::to_string(s[k]);
  return out;
}

void check_range(double v, const char* what) {
  constexpr double lo = -9223372036854775808.0, hi = 9223372036854775807.0;
  SLUICE_CHECK(v >= lo && v <= hi, InvalidArgument, what, " out of range [", lo, ", ", hi,
               "]. Got: ", v);
}

}  // namespace

SliceArgs parse_slice_args(const OpSpec& spec) {
  SliceArgs a;
  SLUICE_CHECK(
      !(spec.has_arg("axes") || spec.arg_inputs.count("axes")) || !spec.has_arg("axis_names"),
      InvalidArgument, "\"axes\" and \"axis_names\" are mutually exclusive");
  for (const char* n : {"start", "rel_start"}) {
    if (!given(spec, nullptr, n)) continue;
    SLUICE_CHECK(a.start.empty(), InvalidArgument,
                 "\"start\" and \"rel_start\" arguments are mutually exclusive");
    a.start = n;
  }
  for (const char* n : {"end", "rel_end", "shape", "rel_shape"}) {
    if (!given(spec, nullptr, n)) continue;
    SLUICE_CHECK(a.end.empty(), InvalidArgument,
                 "\"end\", \"rel_end\", \"shape\", and \"rel_shape\" arguments are mutually "
                 "exclusive");
    a.end = n;
  }
  const std::string policy = spec.arg<std::string>("out_of_bounds_policy");
  using kernels::SliceBorder;
  a.error_policy = policy == "error";
  a.trim = policy == "trim_to_shape";
  if (policy == "pad" || policy == "constant" || a.error_policy || a.trim) {
    a.border = SliceBorder::kConstant;
  } else if (policy == "edge" || policy == "clamp") {
    a.border = SliceBorder::kClamp;
  } else if (policy == "reflect" || policy == "reflect_1001") {
    a.border = SliceBorder::kReflect1001;
  } else if (policy == "reflect_101") {
    a.border = SliceBorder::kReflect101;
  } else if (policy == "wrap") {
    a.border = SliceBorder::kWrap;
  } else {
    throw InvalidArgument(make_string("Not supported out_of_bounds_policy: ", policy));
  }
  a.fill_values = spec.arg<std::vector<double>>("fill_values");
  SLUICE_CHECK(!a.fill_values.empty(), InvalidArgument, "fill_values must not be empty");
  const char* dtype_arg = spec.has_arg("dtype") ? "dtype" : "output_dtype";
  if (spec.has_arg(dtype_arg)) a.dtype = parse_dtype(spec.arg<std::string>(dtype_arg));
  a.normalized_anchor = spec.arg<bool>("normalized_anchor");
  a.normalized_shape = spec.arg<bool>("normalized_shape");
  return a;
}

void plan_slice(const SliceArgs& args, const OpSpec& spec, const Workspace& ws,
                const TensorList* anchor, const TensorList* shape, SlicePlan& p) {
  const TensorList& in = ws.input(0);
  const int ndim = in.sample_ndim();
  const bool named = !args.start.empty() || !args.end.empty();
  if (named) {
    SLUICE_CHECK(!anchor, InvalidArgument,
                 "Named arguments start/end/shape are not compatible with positional anchor and "
                 "shape inputs");
  } else {
    SLUICE_CHECK(anchor && shape, InvalidArgument,
                 "Expected named slice arguments (e.g. start/end, start/shape) or positional "
                 "inputs (start, shape). Got ",
                 ws.num_inputs(), " inputs.");
  }
  SLUICE_CHECK(kernels::slice_type_supported(in.dtype()), InvalidArgument,
               "Not supported input type: ", lower(dtype_name(in.dtype())));
  SLUICE_CHECK(ndim >= 1 && ndim <= 4, InvalidArgument,
               "Not supported number of dimensions: ", ndim);
  p.out_type = args.dtype.value_or(in.dtype());
  SLUICE_CHECK(p.out_type == in.dtype() || p.out_type == DType::kFloat32 ||
                   p.out_type == DType::kFloat16 || p.out_type == DType::kUInt8,
               InvalidArgument, "Not supported output type: ", lower(dtype_name(p.out_type)));
  if (anchor) {
    SLUICE_CHECK(anchor->dtype() == shape->dtype(), InvalidArgument,
                 "Anchor and shape should have the same type. Got: ",
                 lower(dtype_name(anchor->dtype())), " and ", lower(dtype_name(shape->dtype())));
    const DType t = anchor->dtype();
    SLUICE_CHECK(t == DType::kInt32 || t == DType::kInt64 || t == DType::kFloat32, InvalidArgument,
                 "Unsupported type of anchor and shape arguments: ", lower(dtype_name(t)));
  }
  const int n = ws.batch_size();
  p.anchor.resize(n);
  p.out_shapes.resize(n);
  p.channel_dim = -1;
  // The axes and the named values are read for the first sample and again only for the samples
  // that may differ: those of argument inputs (per-sample tensors); a constant argument is the
  // same for the whole batch (Note [Slice planning per batch] in slice.h).
  const bool axes_vary = !spec.has_arg("axis_names") && ws.arg_input("axes") != nullptr;
  const bool start_varies = !args.start.empty() && ws.arg_input(args.start) != nullptr;
  const bool end_varies = !args.end.empty() && ws.arg_input(args.end) != nullptr;
  const bool rel_start = args.start == "rel_start", abs_start = args.start == "start";
  std::vector<int> axes;
  std::vector<double> s, e, av, ev;  // av, ev: the anchor and end of each axis, before rounding
  for (int i = 0; i < n; ++i) {
    const Shape& sh = in.shape(i);
    if (i == 0 || axes_vary) axes = slice_axes(spec, ws, in.layout(), ndim, i);
    Shape& a = p.anchor[i];
    Shape& o = p.out_shapes[i];
    a.assign(ndim, 0);
    o = sh;
    av.clear();
    ev.clear();
    if (named) {
      if (!args.start.empty() && (i == 0 || axes_vary || start_varies)) {
        s = named_values(ws, args.start, axes.size(), i);
      }
      if (!args.end.empty() && (i == 0 || axes_vary || end_varies)) {
        e = named_values(ws, args.end, axes.size(), i);
      }
      for (size_t k = 0; k < axes.size(); ++k) {
        const int64_t ext = sh[axes[k]];
        // Relative values are DALI's float arguments, scaled in float.
        auto rel = [&](double v) { return static_cast<double>(static_cast<float>(v) * ext); };
        double av_k = 0, ev_k = static_cast<double>(ext);
        if (abs_start) av_k = s[k];
        if (rel_start) av_k = rel(s[k]);
        check_range(av_k, "anchor value");
        if (args.end == "end") {
          ev_k = e[k];
        } else if (args.end == "rel_end") {
          ev_k = rel(e[k]);
        } else if (args.end == "shape") {
          SLUICE_CHECK(e[k] >= 0, InvalidArgument, "shape value out of range [0, ",
                       9223372036854775807.0, "]. Got: ", e[k]);
          ev_k = av_k + e[k];
        } else if (args.end == "rel_shape" && rel_start) {
          SLUICE_CHECK(e[k] >= 0, InvalidArgument, "negative shapes are not allowed. Got: ", e[k]);
          ev_k = (static_cast<double>(static_cast<float>(s[k])) +
                  static_cast<double>(static_cast<float>(e[k]))) *
                 static_cast<double>(ext);
        } else if (args.end == "rel_shape") {
          const double v = rel(e[k]);
          SLUICE_CHECK(v >= 0, InvalidArgument, "shape value out of range [0, ",
                       9223372036854775807.0, "]. Got: ", v);
          ev_k = av_k + v;
        }
        check_range(ev_k, "end coordinates");
        av.push_back(av_k);
        ev.push_back(ev_k);
      }
    } else {
      const Shape& as = anchor->shape(i);
      const Shape& ss = shape->shape(i);
      SLUICE_CHECK(as.size() <= 1 && ss.size() <= 1, InvalidArgument,
                   "Anchor and shape must be 1D tensors or scalars");
      s = tensor_values<double>(*anchor, i);
      e = tensor_values<double>(*shape, i);
      SLUICE_CHECK(s.size() == e.size(), InvalidArgument,
                   "Slice anchor and shape should have the same number of arguments. Got: ",
                   s.size(), " and ", e.size());
      SLUICE_CHECK(s.size() == axes.size(), InvalidArgument, "Expected ", axes.size(),
                   " elements for slice arguments (start/shape). Got ", s.size());
      const bool is_float = anchor->dtype() == DType::kFloat32;
      const bool na = is_float && args.normalized_anchor, ns = is_float && args.normalized_shape;
      for (size_t k = 0; k < axes.size(); ++k) {
        const double ext = static_cast<double>(sh[axes[k]]);
        double av_k = s[k], sv = e[k], ev_k;
        if (na && ns) {
          ev_k = (av_k + sv) * ext;
          av_k *= ext;
        } else {
          if (na) av_k *= ext;
          if (ns) sv *= ext;
          ev_k = av_k + sv;
        }
        check_range(av_k, "anchor value");
        check_range(ev_k, "end coordinates value");
        av.push_back(av_k);
        ev.push_back(ev_k);
      }
    }
    for (size_t k = 0; k < axes.size(); ++k) {
      SLUICE_CHECK(ev[k] >= av[k], InvalidArgument,
                   "end coordinates can't be before start coordinates. Got: start=", av[k],
                   " end=", ev[k]);
      a[axes[k]] = std::llround(av[k]);
      o[axes[k]] = std::llround(ev[k]) - a[axes[k]];
    }
    if (args.trim) {
      for (int d = 0; d < ndim; ++d) {
        const int64_t lo = std::clamp<int64_t>(a[d], 0, sh[d]);
        const int64_t hi = std::clamp<int64_t>(a[d] + o[d], 0, sh[d]);
        a[d] = lo;
        o[d] = hi - lo;
      }
    } else if (args.error_policy) {
      for (int d = 0; d < ndim; ++d) {
        SLUICE_CHECK(a[d] >= 0 && a[d] + o[d] <= sh[d], InvalidArgument,
                     "Slice can't be placed out of bounds with current policy. Got: "
                     "input_shape={",
                     dims(sh), "}, slice_anchor={", dims(a), "}, slice_shape={", dims(o), "}");
      }
    }
  }
  const size_t es = dtype_size(p.out_type);
  p.fill.resize(args.fill_values.size() * es);
  for (size_t k = 0; k < args.fill_values.size(); ++k) {
    kernels::slice_fill_value(args.fill_values[k], p.out_type, p.fill.data() + k * es);
  }
  if (args.fill_values.size() > 1) {
    const size_t c = names_layout(in.layout(), ndim).find('C');
    SLUICE_CHECK(c != Layout::npos, InvalidArgument,
                 "Multi-channel fill_values was provided but channel dimension could not be "
                 "found in layout");
    p.channel_dim = static_cast<int>(c);
    if (args.border == kernels::SliceBorder::kConstant && !args.error_policy && !args.trim) {
      for (int i = 0; i < n; ++i) {
        SLUICE_CHECK(static_cast<int64_t>(args.fill_values.size()) == p.out_shapes[i][c],
                     InvalidArgument,
                     "Multi-channel fill value does not match the number of channels in the "
                     "output");
      }
    }
  }
}

bool slice_is_copy(const SlicePlan& plan, const TensorList& in, int i) {
  if (plan.out_type != in.dtype()) return false;
  const Shape& sh = in.shape(i);
  for (size_t d = 0; d < sh.size(); ++d) {
    const int64_t a = plan.anchor[i][d], o = plan.out_shapes[i][d];
    if (o > 0 && (a < 0 || a + o > sh[d])) return false;
  }
  return true;
}

kernels::StridedCopyDesc slice_copy_desc(const SlicePlan& plan, const TensorList& in,
                                         TensorList& out, int i) {
  kernels::StridedCopyDesc d;
  const Shape& sh = in.shape(i);
  const Shape& extent = plan.out_shapes[i];
  static const Shape kSteps[] = {{}, {1}, {1, 1}, {1, 1, 1}, {1, 1, 1, 1}};  // 1 to 4 dimensions
  const bool empty = std::find(extent.begin(), extent.end(), 0) != extent.end();
  Shape zeroed;  // an empty dimension reads nothing: its start is 0
  if (empty) {
    zeroed = plan.anchor[i];
    for (size_t k = 0; k < sh.size(); ++k) zeroed[k] = extent[k] == 0 ? 0 : zeroed[k];
  }
  SLUICE_CHECK(kernels::describe_strided_copy(
                   d, out.raw_sample(i), in.raw_sample(i), dtype_size(in.dtype()), sh,
                   empty ? zeroed : plan.anchor[i], kSteps[sh.size()], extent),
               InvalidArgument, "slice of too many dimensions");
  return d;
}

kernels::SliceDesc slice_desc(const SlicePlan& plan, const TensorList& in, TensorList& out, int i,
                              const void* fill) {
  kernels::SliceDesc d;
  d.out = out.raw_sample(i);
  d.in = in.raw_sample(i);
  d.ndim = in.sample_ndim();
  for (int k = 0; k < d.ndim; ++k) {
    d.in_shape[k] = in.shape(i)[k];
    d.out_shape[k] = plan.out_shapes[i][k];
    d.anchor[k] = plan.anchor[i][k];
  }
  d.fill = fill;
  d.channel_dim = plan.channel_dim;
  return d;
}

}  // namespace sluice
