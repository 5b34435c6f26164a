#pragma once
// normalize: out = (in - mean) * inv_stddev + shift, with the mean and the (scaled) inverse
// standard deviation given per parameter element, broadcast over the normalized axes. What the
// CPU and CUDA kernels share: the geometry, the folding of per-sample statistics into the
// parameters, and the conversion of the result (DALI's: round half away from zero, saturate).

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "sluice/core/dtype.h"
#include "sluice/core/error.h"
#include "sluice/core/shape.h"
#include "sluice/kernels/common/host_device.h"
#include "sluice/kernels/reduce/reduce.h"

namespace sluice::kernels {

// One sample: its dimensions, adjacent ones of a kind merged, each with its stride into the
// parameters (0 along a normalized axis).
struct NormalizeGeometry {
  int ndim = 0;
  int64_t extent[kMaxReduceDims] = {};
  int64_t param_stride[kMaxReduceDims] = {};
  int64_t volume = 1;
  int64_t params = 1;  // parameter elements
};

// `axis_mask`: bit d set for a normalized axis d of `in`.
NormalizeGeometry normalize_geometry(const Shape& in, uint64_t axis_mask);

// The parameter element of input element `i`.
SLUICE_HOST_DEVICE inline int64_t normalize_param_index(const NormalizeGeometry& g, int64_t i) {
  // One parameter (the common full normalization) needs no index arithmetic; 32-bit division
  // is much cheaper than 64-bit division on the GPU.
  if (g.params == 1) return 0;
  if (g.volume <= INT32_MAX) {
    uint32_t j = static_cast<uint32_t>(i), p = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
      const uint32_t e = static_cast<uint32_t>(g.extent[d]);
      p += (j % e) * static_cast<uint32_t>(g.param_stride[d]);
      j /= e;
    }
    return p;
  }
  int64_t p = 0;
  for (int d = g.ndim - 1; d >= 0; --d) {
    p += (i % g.extent[d]) * g.param_stride[d];
    i /= g.extent[d];
  }
  return p;
}

// A statistic of one sample (its mean, or its variance with divisor `count`) over `count`
// elements per parameter element.
struct NormalizePart {
  const float* values;
  int64_t count;
};

// Parameters computed from parts: `num_parts` of them (one sample, or the whole batch) into
// `size` elements of `out`.
struct NormalizeFold {
  const NormalizePart* parts;
  int num_parts;
  float* out;
  int64_t size;
};

enum class NormalizeFoldKind : uint8_t { kMean, kInvStdDev };

struct NormalizeFoldParams {
  NormalizeFoldKind kind;
  int ddof;
  float epsilon;
  float scale;
};

// scale / sqrt(variance + epsilon) of a sum of squared deviations over `n` elements, with DALI's
// special cases: a zero variance without epsilon gives 0 (the output is `shift`), and so does a
// divisor n - ddof <= 0 without epsilon; with epsilon that divisor leaves scale / sqrt(epsilon).
SLUICE_HOST_DEVICE inline float normalize_inv_stddev(double sq_sum, int64_t n, int ddof,
                                                     float epsilon, float scale) {
  if (n <= ddof) return epsilon != 0 ? div_rn(scale, sqrtf(epsilon)) : 0.0f;
  const float var = static_cast<float>(div_rn(sq_sum, static_cast<double>(n - ddof)));
  if (epsilon != 0) return div_rn(scale, sqrtf(add_rn(var, epsilon)));
  return var != 0 ? div_rn(scale, sqrtf(var)) : 0.0f;
}

// scale / stddev of a given standard deviation (with epsilon: scale / sqrt(stddev^2 + epsilon)).
SLUICE_HOST_DEVICE inline float normalize_inv_given(float stddev, float epsilon, float scale) {
  if (epsilon != 0) return div_rn(scale, sqrtf(add_rn(mul_rn(stddev, stddev), epsilon)));
  return div_rn(scale, stddev);
}

SLUICE_HOST_DEVICE inline float normalize_fold_value(const NormalizePart* parts, int num_parts,
                                                     int64_t p, const NormalizeFoldParams& f) {
  double acc = 0;
  int64_t n = 0;
  for (int k = 0; k < num_parts; ++k) {
    if (parts[k].count == 0) continue;  // an empty sample has no statistic
    acc = add_rn(
        acc, mul_rn(static_cast<double>(parts[k].values[p]), static_cast<double>(parts[k].count)));
    n += parts[k].count;
  }
  if (f.kind == NormalizeFoldKind::kMean) {
    return n > 0 ? static_cast<float>(div_rn(acc, static_cast<double>(n))) : 0.0f;
  }
  return normalize_inv_stddev(acc, n, f.ddof, f.epsilon, f.scale);
}

// (x - mean) * inv + shift, rounded the same on both sides.
SLUICE_HOST_DEVICE inline float normalize_value(float x, float mean, float inv, float shift) {
  return add_rn(mul_rn(sub_rn(x, mean), inv), shift);
}

// A normalized value converted to Out: floats as they are, integers rounded half away
// from zero and saturated (NaN gives 0).
template <typename Out>
SLUICE_HOST_DEVICE inline Out normalize_convert(float v) {
  if constexpr (std::is_floating_point_v<Out>) {
    return v;
  } else {
    if (!(v == v)) return Out(0);
    const float r = roundf(v);
    if (r <= static_cast<float>(std::numeric_limits<Out>::lowest())) {
      return std::numeric_limits<Out>::lowest();
    }
    if (r >= static_cast<float>(std::numeric_limits<Out>::max())) {
      return std::numeric_limits<Out>::max();
    }
    return static_cast<Out>(r);
  }
}

// Calls fn(TypeTag<In>{}, TypeTag<Out>{}) for DALI's normalize types: (u)int8, (u)int16,
// (u)int32 and float32, in and out; throws InvalidArgument for any other.
template <typename Fn>
void normalize_type_dispatch(DType in, DType out, Fn&& fn) {
  auto one = [](DType t, const char* what, auto&& f) {
    switch (t) {
      case DType::kUInt8:
        return f(TypeTag<uint8_t>{});
      case DType::kInt8:
        return f(TypeTag<int8_t>{});
      case DType::kUInt16:
        return f(TypeTag<uint16_t>{});
      case DType::kInt16:
        return f(TypeTag<int16_t>{});
      case DType::kUInt32:
        return f(TypeTag<uint32_t>{});
      case DType::kInt32:
        return f(TypeTag<int32_t>{});
      case DType::kFloat32:
        return f(TypeTag<float>{});
      default:
        throw InvalidArgument(
            make_string("Normalize: unsupported ", what, " type: ", dtype_name(t)));
    }
  };
  one(in, "input",
      [&](auto in_tag) { one(out, "output", [&](auto out_tag) { fn(in_tag, out_tag); }); });
}

// One sample on the CPU: `mean` and `inv` hold the sample's parameter elements.
void normalize_cpu(void* out, DType out_type, const void* in, DType in_type,
                   const NormalizeGeometry& g, const float* mean, const float* inv, float shift);
void normalize_fold_cpu(const NormalizeFold& fold, const NormalizeFoldParams& params);

// The batch on the GPU (device memory throughout; `samples` / `folds` too).
struct NormalizeSampleGpu {
  const void* in;
  void* out;
  const float* mean;
  const float* inv;
  NormalizeGeometry g;
};
void normalize_gpu(const NormalizeSampleGpu* samples, int num_samples, int64_t max_volume,
                   DType out_type, DType in_type, float shift, void* stream);
void normalize_fold_gpu(const NormalizeFold* folds, int num_folds, int64_t max_size,
                        const NormalizeFoldParams& params, void* stream);

}  // namespace sluice::kernels
