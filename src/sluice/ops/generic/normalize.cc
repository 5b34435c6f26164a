// normalize: (in - mean) / stddev * scale + shift, the statistics given or computed over axes,
// per sample or over the batch. The GPU class is in normalize_gpu.cc.

#include <algorithm>
#include <string>

#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/reduce/reduce_cpu.h"
#include "sluice/ops/generic/axes_args.h"
#include "sluice/ops/generic/normalize_op.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("normalize")
        .doc("Normalizes the input by removing the mean and dividing by the standard deviation: "
             "out = scale * (in - mean) / stddev + shift. The mean and standard deviation are "
             "given (scalars, or per-sample tensors with extent 1 along the normalized axes) or "
             "computed over `axes`, per sample or, with `batch`, over the whole batch.")
        .num_inputs(1, 1)
        .input_doc("input", "Data to normalize ((u)int8, (u)int16, (u)int32 or float).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("batch", ArgType::kBool, false,
             "Compute the mean and standard deviation across all samples of the batch; the "
             "samples' extents along the other axes must match.")
        .optional_arg("mean", ArgType::kFloat,
                      "Mean to subtract: a scalar, or a per-sample tensor with the input's "
                      "dimensions (extent 1 along the normalized axes); computed when absent.",
                      /*per_sample=*/true)
        .optional_arg("stddev", ArgType::kFloat,
                      "Standard deviation to divide by, as `mean`; computed when absent.",
                      /*per_sample=*/true)
        .optional_arg("axes", ArgType::kIntList,
                      "Indices of the dimensions along which the input is normalized; by default "
                      "all.")
        .optional_arg("axis_names", ArgType::kString,
                      "Names of the normalized axes, from the input layout; excludes `axes`.")
        .arg("shift", ArgType::kFloat, 0.0, "The value to which the mean maps in the output.")
        .arg("scale", ArgType::kFloat, 1.0, "The scaling factor applied to the output.")
        .arg("epsilon", ArgType::kFloat, 0.0,
             "A value added to the variance to avoid division by small numbers.")
        .arg("ddof", ArgType::kInt, int64_t{0},
             "Delta Degrees of Freedom: the variance is sum((x - mean)^2) / (N - ddof). Ignored "
             "for a given standard deviation.")
        .arg("dtype", ArgType::kDType, std::string("FLOAT"),
             "Output data type; integers are rounded to nearest and saturated."));

}  // namespace

NormalizePlan plan_normalize(const OpSpec& spec, const Workspace& ws) {
  using Source = NormalizePlan::Source;
  const TensorList& in = ws.input(0);
  const int n = in.num_samples(), ndim = in.sample_ndim();
  NormalizePlan p;
  const TensorList* mean_t = ws.arg_input("mean");
  const TensorList* std_t = ws.arg_input("stddev");
  p.mean = mean_t ? Source::kTensor : spec.has_arg("mean") ? Source::kScalar : Source::kComputed;
  p.stddev = std_t ? Source::kTensor : spec.has_arg("stddev") ? Source::kScalar : Source::kComputed;
  p.batch = spec.arg<bool>("batch");
  p.shift = spec.arg<float>("shift");
  p.scale = spec.arg<float>("scale");
  p.epsilon = spec.arg<float>("epsilon");
  p.ddof = static_cast<int>(spec.arg<int64_t>("ddof"));
  p.out_type = parse_dtype(spec.arg<std::string>("dtype"));
  kernels::normalize_type_dispatch(in.dtype(), p.out_type, [](auto, auto) {});
  const bool has_axes = spec.has_arg("axes"), has_names = spec.has_arg("axis_names");
  SLUICE_CHECK(!(has_axes && has_names), InvalidArgument,
               "Normalize: Arguments `axes` and `axis_names` are mutually exclusive");
  SLUICE_CHECK(
      !(p.mean == Source::kScalar && p.stddev == Source::kScalar) || !(has_axes || has_names),
      InvalidArgument,
      "Normalize: Axes must not be specified when both mean and standard deviation are "
      "scalars");
  SLUICE_CHECK(!p.batch || (p.mean != Source::kTensor && p.stddev != Source::kTensor),
               InvalidArgument,
               "Normalize: Batch normalization cannot be used with parameters specified as "
               "TensorList inputs");

  for (const TensorList* t : {mean_t, std_t}) {
    SLUICE_CHECK(!t || t->dtype() == DType::kFloat32, InvalidArgument,
                 "Normalize: `mean` and `stddev` tensors must be FLOAT, got ",
                 dtype_name(t->dtype()));
  }
  // The parameter shape given as tensors, if any.
  const TensorList* param_t = mean_t ? mean_t : std_t;
  if (mean_t && std_t) {
    for (int i = 0; i < n; ++i) {
      SLUICE_CHECK(mean_t->shape(i) == std_t->shape(i), InvalidArgument,
                   "Normalize: When providing both `mean` and `stddev`, their shapes must match "
                   "(sample ",
                   i, ": ", shape_to_string(mean_t->shape(i)), " and ",
                   shape_to_string(std_t->shape(i)), ")");
    }
  }
  const bool all_scalar = p.mean == Source::kScalar && p.stddev == Source::kScalar;
  if (!all_scalar && has_axes) {
    const auto axes = spec.arg<std::vector<int64_t>>("axes");
    SLUICE_CHECK(!axes.empty(), InvalidArgument,
                 "Normalize `axes` argument must specify at least one reduction axis.");
    for (int64_t a : axes) {
      SLUICE_CHECK(a >= 0 && a < ndim, InvalidArgument, "Normalize: axis index ", a,
                   " is out of valid range 0..", ndim - 1);
      p.axis_mask |= uint64_t{1} << a;
    }
  } else if (!all_scalar && has_names) {
    for (int d : axes_from_names(in.layout(), spec.arg<std::string>("axis_names"))) {
      p.axis_mask |= uint64_t{1} << d;
    }
  } else if (!all_scalar && param_t) {
    const int pdim = n > 0 ? static_cast<int>(param_t->shape(0).size()) : 0;
    for (int d = 0; d < pdim; ++d) {
      bool degenerate = true;
      for (int i = 0; i < n; ++i) degenerate = degenerate && param_t->shape(i)[d] == 1;
      if (degenerate) p.axis_mask |= uint64_t{1} << d;
    }
  } else {
    p.axis_mask = ndim >= 64 ? ~uint64_t{0} : (uint64_t{1} << ndim) - 1;
  }

  for (int i = 0; i < n; ++i) {
    Shape expected = in.shape(i);
    for (int d = 0; d < ndim; ++d) {
      if ((p.axis_mask >> d) & 1) expected[d] = 1;
    }
    if (param_t) {
      SLUICE_CHECK(
          param_t->shape(i) == expected, InvalidArgument, "Normalize: At sample ", i,
          ": parameter shape: ", shape_to_string(param_t->shape(i)),
          " does not match the reduced input sample shape which is : ", shape_to_string(expected));
    }
    if (p.batch && i > 0) {
      for (int d = 0; d < ndim; ++d) {
        SLUICE_CHECK(((p.axis_mask >> d) & 1) || in.shape(i)[d] == in.shape(0)[d], InvalidArgument,
                     "Normalize: Batch normalization requires that non-reduced dimensions have "
                     "equal extent in all samples in the batch. Got sample #",
                     i, " with shape ", shape_to_string(in.shape(i)),
                     " which has a different extent (", in.shape(i)[d], ") in axis ", d,
                     " than sample #0, which was of shape ", shape_to_string(in.shape(0)));
      }
    }
    p.param_volume.push_back(volume(expected));
    p.count.push_back(p.param_volume.back() ? volume(in.shape(i)) / p.param_volume.back() : 0);
    p.geometry.push_back(kernels::normalize_geometry(in.shape(i), p.axis_mask));
  }

  // Given values, broadcast to the parameter elements.
  auto given = [&](Source src, const char* name, const TensorList* t, bool inverse) {
    std::vector<std::vector<float>> values(n);
    if (src == Source::kComputed) return values;
    const float scalar = src == Source::kScalar ? spec.arg<float>(name) : 0.0f;
    for (int i = 0; i < n; ++i) {
      values[i] = t ? tensor_values<float>(*t, i)
                    : std::vector<float>(static_cast<size_t>(p.param_volume[i]), scalar);
      if (inverse) {
        for (float& v : values[i]) {
          // A zero tensor stddev without epsilon gives 0 (DALI's choice); a scalar one divides.
          v = (t && v == 0 && p.epsilon == 0) ? 0.0f
                                              : kernels::normalize_inv_given(v, p.epsilon, p.scale);
        }
      }
    }
    return values;
  };
  p.mean_values = given(p.mean, "mean", mean_t, false);
  p.inv_values = given(p.stddev, "stddev", std_t, true);
  return p;
}

void NormalizeCpu::run(Workspace& ws) {
  using Source = NormalizePlan::Source;
  using kernels::NormalizeFoldKind;
  const TensorList& in = ws.input(0);
  NormalizePlan p = plan_normalize(spec_, ws);
  const int n = in.num_samples();
  TensorList& out = ws.output(0);
  out.resize(in.shapes(), p.out_type);
  out.set_layout(in.layout());
  std::vector<std::vector<float>>& mean = p.mean_values;
  std::vector<std::vector<float>>& inv = p.inv_values;
  const int inline_n = inline_below(in);

  // One statistic per sample (mean, or variance around `around`), folded per sample or over the
  // batch into `into`.
  auto statistic = [&](kernels::ReduceOp op, const std::vector<std::vector<float>>* around,
                       NormalizeFoldKind kind, std::vector<std::vector<float>>& into) {
    std::vector<std::vector<float>> part(n);
    ws.for_each_sample(
        [&](int i, int) {
          part[i].resize(static_cast<size_t>(p.param_volume[i]));
          kernels::reduce_cpu(op, part[i].data(), DType::kFloat32, in.raw_sample(i), in.dtype(),
                              kernels::reduce_geometry(in.shape(i), p.axis_mask),
                              around ? (*around)[p.batch ? 0 : i].data() : nullptr, 0);
        },
        inline_n);
    std::vector<kernels::NormalizePart> parts(n);
    for (int i = 0; i < n; ++i) parts[i] = {part[i].data(), p.count[i]};
    into.assign(n, {});
    for (int i = 0; i < (p.batch ? std::min(n, 1) : n); ++i) {
      into[i].resize(static_cast<size_t>(p.param_volume[i]));
      kernels::normalize_fold_cpu(
          {parts.data() + (p.batch ? 0 : i), p.batch ? n : 1, into[i].data(), p.param_volume[i]},
          p.fold(kind));
    }
  };
  if (p.mean == Source::kComputed) {
    statistic(kernels::ReduceOp::kMean, nullptr, NormalizeFoldKind::kMean, mean);
  }
  if (p.stddev == Source::kComputed) {
    statistic(kernels::ReduceOp::kVariance, &mean, NormalizeFoldKind::kInvStdDev, inv);
  }
  ws.for_each_sample(
      [&](int i, int) {
        const bool b = p.batch && p.mean == Source::kComputed;
        const bool bi = p.batch && p.stddev == Source::kComputed;
        kernels::normalize_cpu(out.raw_sample(i), p.out_type, in.raw_sample(i), in.dtype(),
                               p.geometry[i], mean[b ? 0 : i].data(), inv[bi ? 0 : i].data(),
                               p.shift);
      },
      inline_n);
}

namespace {
SLUICE_REGISTER_OPERATOR("normalize", OpDevice::kCPU, NormalizeCpu);
}  // namespace

}  // namespace sluice
