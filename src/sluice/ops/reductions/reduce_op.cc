#include "sluice/ops/reductions/reduce_op.h"

#include <cstring>
#include <string>

#include "sluice/kernels/reduce/reduce_cpu.h"
#include "sluice/ops/generic/axes_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {

using kernels::ReduceOp;

OpSchema reduce_schema(OpSchema s, bool with_dtype, bool with_mean) {
  s.num_inputs(with_mean ? 2 : 1, with_mean ? 2 : 1)
      .input_doc("data", "Input to the operator.")
      .devices({OpDevice::kCPU, OpDevice::kGPU})
      .optional_arg("axes", ArgType::kIntList,
                    "Axis or axes along which reduction is performed. Accepted range is "
                    "[-ndim, ndim-1]; negative indices count from the back. Not providing any "
                    "axis reduces all elements.")
      .optional_arg("axis_names", ArgType::kString,
                    "Name(s) of the axis or axes along which the reduction is performed, taken "
                    "from the input layout (axis_names=\"HW\" with layout \"FHWC\" is axes=[1, "
                    "2]). Cannot be used together with `axes`.")
      .arg("keep_dims", ArgType::kBool, false, "If True, maintains original input dimensions.");
  if (with_dtype) {
    s.optional_arg("dtype", ArgType::kDType,
                   "Output data type. This type is used to accumulate the result.");
  }
  if (with_mean) {
    s.input_doc("mean",
                "Mean value to use in the calculations (FLOAT, one value per output "
                "element).")
        .arg("ddof", ArgType::kInt, int64_t{0},
             "Delta Degrees of Freedom. Adjusts the divisor used in calculations, which is "
             "`N - ddof`.");
  }
  return s;
}

bool empty_axes_given(const OpSpec& spec) {
  return (spec.has_arg("axes") && spec.arg<std::vector<int64_t>>("axes").empty()) ||
         (spec.has_arg("axis_names") && spec.arg<std::string>("axis_names").empty());
}

uint64_t reduced_axis_mask(const OpSpec& spec, const Layout& layout, int ndim) {
  SLUICE_CHECK(!(spec.has_arg("axes") && spec.has_arg("axis_names")), InvalidArgument,
               "Arguments `axes` and `axis_names` are mutually exclusive");
  std::vector<int64_t> axes;
  if (spec.has_arg("axis_names")) {
    for (int d : axes_from_names(layout, spec.arg<std::string>("axis_names"))) axes.push_back(d);
  } else if (spec.has_arg("axes")) {
    axes = spec.arg<std::vector<int64_t>>("axes");
  } else {
    for (int d = 0; d < ndim; ++d) axes.push_back(d);
  }
  uint64_t mask = 0;
  for (int64_t a : axes) {
    SLUICE_CHECK(a >= -ndim && a < ndim, InvalidArgument, "Axis index out of range: ", a,
                 " not in range [", -ndim, ",", ndim - 1, "]");
    if (a < 0) a += ndim;
    SLUICE_CHECK(!((mask >> a) & 1), InvalidArgument, "Duplicate axis index ", a);
    mask |= uint64_t{1} << a;
  }
  return mask;
}

Shape reduced_shape(const Shape& in, uint64_t mask, bool keep_dims) {
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!((mask >> d) & 1)) {
      out.push_back(in[d]);
    } else if (keep_dims) {
      out.push_back(1);
    }
  }
  return out;
}

Layout reduced_layout(const Layout& in, uint64_t mask, bool keep_dims) {
  if (keep_dims) return in;
  Layout out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!((mask >> d) & 1)) out.push_back(in[d]);
  }
  return out;
}

DType reduce_output_type(ReduceOp op, DType in, std::optional<DType> requested) {
  const bool integer = in != DType::kFloat32;
  switch (in) {
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kUInt16:
    case DType::kInt16:
    case DType::kUInt32:
    case DType::kInt32:
    case DType::kUInt64:
    case DType::kInt64:
    case DType::kFloat32:
      break;
    default:
      throw InvalidArgument(make_string("Unsupported input type: ", dtype_name(in)));
  }
  const DType wide = dtype_is_signed(in) ? DType::kInt64 : DType::kUInt64;
  std::vector<DType> allowed;  // the default first
  switch (op) {
    case ReduceOp::kSum:
      allowed = integer ? std::vector<DType>{wide, in, DType::kFloat32} : std::vector{in};
      if (in == wide) allowed = {in};
      break;
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      allowed = {in};
      break;
    case ReduceOp::kMean:
    case ReduceOp::kRms:
      allowed = {DType::kFloat32, in};
      break;
    case ReduceOp::kMeanSquare:
      allowed = {DType::kFloat32, integer ? wide : DType::kFloat32};
      break;
    case ReduceOp::kVariance:
    case ReduceOp::kStdDev:
      allowed = {DType::kFloat32};
      break;
  }
  if (!requested) return allowed[0];
  for (DType t : allowed) {
    if (t == *requested) return t;
  }
  throw InvalidArgument(
      make_string("Unsupported types: ", dtype_name(in), ", ", dtype_name(*requested)));
}

ReducePlan plan_reduce(ReduceOp op, const OpSpec& spec, const Workspace& ws) {
  const TensorList& in = ws.input(0);
  const bool with_mean = op == ReduceOp::kVariance || op == ReduceOp::kStdDev;
  ReducePlan p;
  std::optional<DType> requested;
  if (spec.has_arg("dtype")) requested = parse_dtype(spec.arg<std::string>("dtype"));
  p.out_type = reduce_output_type(op, in.dtype(), requested);
  const bool keep = spec.arg<bool>("keep_dims");
  const int ndim = in.sample_ndim();
  const uint64_t mask = reduced_axis_mask(spec, in.layout(), ndim);
  p.layout = reduced_layout(in.layout(), mask, keep);
  p.zero_fill = with_mean && empty_axes_given(spec);
  if (with_mean) p.ddof = static_cast<int>(spec.arg<int64_t>("ddof"));
  for (int i = 0; i < in.num_samples(); ++i) {
    p.out_shapes.push_back(reduced_shape(in.shape(i), mask, keep));
    p.geometry.push_back(kernels::reduce_geometry(in.shape(i), mask));
  }
  if (with_mean) {
    const TensorList& mean = ws.input(1);
    SLUICE_CHECK(mean.dtype() == DType::kFloat32, InvalidArgument,
                 "The mean must be of type FLOAT, got ", dtype_name(mean.dtype()));
    for (int i = 0; i < in.num_samples(); ++i) {
      SLUICE_CHECK(volume(mean.shape(i)) == p.geometry[i].out_volume, InvalidArgument,
                   "The mean of sample ", i, " has shape ", shape_to_string(mean.shape(i)),
                   "; the reduction gives ", shape_to_string(p.out_shapes[i]));
    }
  }
  return p;
}

template <ReduceOp Op>
void ReduceCpu<Op>::run(Workspace& ws) {
  const TensorList& in = ws.input(0);
  ReducePlan p = plan_reduce(Op, spec_, ws);
  TensorList& out = ws.output(0);
  out.resize(p.out_shapes, p.out_type);
  out.set_layout(p.layout);
  const TensorList* mean = ws.num_inputs() > 1 ? &ws.input(1) : nullptr;
  ws.for_each_sample(
      [&](int i, int) {
        if (p.zero_fill) {
          std::memset(out.raw_sample(i), 0, out.sample_bytes(i));
          return;
        }
        kernels::reduce_cpu(Op, out.raw_sample(i), p.out_type, in.raw_sample(i), in.dtype(),
                            p.geometry[i], mean ? mean->sample<float>(i) : nullptr, p.ddof);
      },
      inline_below(in));
}

template class ReduceCpu<ReduceOp::kSum>;
template class ReduceCpu<ReduceOp::kMin>;
template class ReduceCpu<ReduceOp::kMax>;
template class ReduceCpu<ReduceOp::kMean>;
template class ReduceCpu<ReduceOp::kMeanSquare>;
template class ReduceCpu<ReduceOp::kRms>;
template class ReduceCpu<ReduceOp::kVariance>;
template class ReduceCpu<ReduceOp::kStdDev>;

}  // namespace sluice
