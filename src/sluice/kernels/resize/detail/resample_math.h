#pragma once
// Coefficient math of one output pixel of one axis, compiled for the host (CPU reference,
// tests) and for the device (coefficient kernel) from this one source.
//
// Note [Bit-identical coefficients]
// The CPU reference and the CUDA kernels must agree exactly on the uint8 path (integer
// arithmetic after the coefficients), so the coefficients themselves must be bit-identical.
// Everything here uses only IEEE-754 double +, -, *, / (correctly rounded on both sides) through
// the *_rn helpers of kernels/common/host_device.h, which on the device are the explicit
// round-to-nearest intrinsics: nvcc would otherwise contract a * b + c into an FMA, and the host
// compiler (ISO C++ mode, x86-64 baseline) does not. sin and exp are evaluated by polynomials
// written here rather than by libm / CUDA's math library, whose last-bit rounding differs. Their
// accuracy (a few 1e-15 relative) is far below what the float or 22-bit fixed-point coefficients
// keep, so the results still match Pillow's (which uses libm) in practice; the offline comparison
// found no difference.

#include <cstdint>

#include "sluice/kernels/common/host_device.h"
#include "sluice/kernels/resize/resample_filter.h"

#include <cmath>

namespace sluice::kernels::detail {

SLUICE_HOST_DEVICE inline double floor_exact(double x) {
#if defined(__CUDA_ARCH__)
  return ::floor(x);
#else
  return std::floor(x);
#endif
}

// sin(pi * t) for |t| < 2^31. Reduces t = n + r with |r| <= 0.5 (exact), then a Taylor
// polynomial of sin(y) / y, y = pi r, to degree 22: truncation error < 1e-20 on |y| <= pi / 2.
// Exactly 0 at integers, which keeps interpolating filters exact at scale 1.
SLUICE_HOST_DEVICE inline double sin_pi(double t) {
  const double n = floor_exact(add_rn(t, 0.5));
  const double r = sub_rn(t, n);
  const double y = mul_rn(r, 3.141592653589793);
  const double y2 = mul_rn(y, y);
  // 1 / (2k + 1)! with alternating signs, highest degree first.
  constexpr double kCoeffs[] = {
      -3.868170170630684e-23, 1.9572941063391263e-20, -8.22063524662433e-18,
      2.8114572543455206e-15, -7.647163731819816e-13, 1.6059043836821613e-10,
      -2.505210838544172e-08, 2.7557319223985893e-06, -0.0001984126984126984,
      0.008333333333333333,   -0.16666666666666666,   1.0};
  double p = kCoeffs[0];
  for (int k = 1; k < 12; k++) p = add_rn(mul_rn(p, y2), kCoeffs[k]);
  const double s = mul_rn(y, p);
  const bool odd = (static_cast<int64_t>(n) & 1) != 0;
  return odd ? -s : s;
}

// exp(-v) for 0 <= v <= 4: Taylor series of exp(u), u = -v / 16 (exact), to degree 12
// (error < 3e-18), then squared four times (relative error < 4e-15).
SLUICE_HOST_DEVICE inline double exp_neg_small(double v) {
  const double u = mul_rn(v, -0.0625);
  constexpr double kInvFactorials[] = {2.08767569878681e-09,
                                       2.505210838544172e-08,
                                       2.755731922398589e-07,
                                       2.7557319223985893e-06,
                                       2.48015873015873e-05,
                                       0.0001984126984126984,
                                       0.001388888888888889,
                                       0.008333333333333333,
                                       0.041666666666666664,
                                       0.16666666666666666,
                                       0.5,
                                       1.0,
                                       1.0};
  double p = kInvFactorials[0];
  for (int k = 1; k < 13; k++) p = add_rn(mul_rn(p, u), kInvFactorials[k]);
  for (int k = 0; k < 4; k++) p = mul_rn(p, p);
  return p;
}

SLUICE_HOST_DEVICE inline double sinc(double x) {
  if (x == 0.0) return 1.0;
  return div_rn(sin_pi(x), mul_rn(x, 3.141592653589793));
}

// The filters, as functions of the distance x in units of the nominal (unwidened) filter.
// Formulas and bounds are Pillow's (bilinear_filter, bicubic_filter, lanczos_filter) operation
// for operation; the Gaussian is DALI's window (exp(-x^2) sampled on [-2, 2] and rescaled to
// radius 1).
SLUICE_HOST_DEVICE inline double filter_value(ResampleFilter filter, double x) {
  switch (filter) {
    case ResampleFilter::kLinear:
    case ResampleFilter::kTriangular:
      if (x < 0.0) x = -x;
      return x < 1.0 ? sub_rn(1.0, x) : 0.0;
    case ResampleFilter::kCubic: {
      constexpr double a = -0.5;
      if (x < 0.0) x = -x;
      if (x < 1.0) {
        // ((a + 2) x - (a + 3)) x x + 1
        return add_rn(mul_rn(mul_rn(sub_rn(mul_rn(a + 2.0, x), a + 3.0), x), x), 1.0);
      }
      if (x < 2.0) {
        // (((x - 5) x + 8) x - 4) a
        return mul_rn(sub_rn(mul_rn(add_rn(mul_rn(sub_rn(x, 5.0), x), 8.0), x), 4.0), a);
      }
      return 0.0;
    }
    case ResampleFilter::kLanczos3:
      if (-3.0 <= x && x < 3.0) return mul_rn(sinc(x), sinc(div_rn(x, 3.0)));
      return 0.0;
    case ResampleFilter::kGaussian:
      if (x < 0.0) x = -x;
      return x < 1.0 ? exp_neg_small(mul_rn(mul_rn(x, x), 4.0)) : 0.0;
    case ResampleFilter::kNearest:
      break;
  }
  return 0.0;
}

inline constexpr double kNominalSupport[] = {
    0.5,  // kNearest (not evaluated; one tap)
    1.0,  // kLinear
    1.0,  // kTriangular
    2.0,  // kCubic
    3.0,  // kLanczos3
    1.0,  // kGaussian
};

// Index along the forward (unmirrored) output of computed output i.
SLUICE_HOST_DEVICE inline int32_t forward_index(const AxisResampling& a, int32_t i) {
  const int32_t f = a.out_offset + i;
  return a.mirror ? a.out_size - 1 - f : f;
}

// Input pixel sampled by nearest-neighbour output f. Pillow's NEAREST (ImagingScaleAffine) walks
// the centre by repeated addition, x_0 = origin + scale / 2, x_{f+1} = x_f + scale, and
// truncates; the accumulated rounding decides ties (centres that are exact integers), so the
// same walk is repeated here instead of the closed form origin + (f + 0.5) * scale.
SLUICE_HOST_DEVICE inline double nearest_position(double origin, double scale, int32_t f) {
  double x = add_rn(origin, mul_rn(scale, 0.5));
  for (int32_t k = 0; k < f; k++) x = add_rn(x, scale);
  return x;
}
SLUICE_HOST_DEVICE inline int32_t nearest_input(double position, int32_t in_size) {
  if (!(position >= 0.0)) return 0;
  if (position >= static_cast<double>(in_size)) return in_size - 1;
  return static_cast<int32_t>(position);
}

// Taps of one output pixel: inputs first .. first + count - 1 around `center`.
struct TapSpan {
  int32_t first;
  int32_t count;
  double center;
};

// Pillow's precompute_coeffs bounds: xmin = (int)(center - support + 0.5) and
// xmax = (int)(center + support + 0.5), clipped to the image. Unlike Pillow the centre is first
// clamped to [0, in_size]: windows inside the image (all Pillow accepts) are unaffected, and an
// output pixel whose centre lies outside the image takes the value at the nearest edge instead
// of a renormalised filter tail (which can blow up when the kept taps nearly cancel).
SLUICE_HOST_DEVICE inline TapSpan filter_taps(const AxisResampling& a, int32_t f) {
  double center = add_rn(a.origin, mul_rn(static_cast<double>(f) + 0.5, a.scale));
  const double in = static_cast<double>(a.in_size);
  if (!(center >= 0.0)) center = 0.0;
  if (center > in) center = in;
  const double lo = add_rn(sub_rn(center, a.support), 0.5);
  const double hi = add_rn(add_rn(center, a.support), 0.5);
  const int32_t first = lo <= 0.0 ? 0 : static_cast<int32_t>(lo);
  const int32_t end = hi >= in ? a.in_size : static_cast<int32_t>(hi);
  return {first, end - first, center};
}

// Unnormalised weight of tap j: Pillow's filter((x + xmin - center + 0.5) * ss).
SLUICE_HOST_DEVICE inline double tap_weight(const AxisResampling& a, const TapSpan& t, int32_t j) {
  const double d = add_rn(sub_rn(static_cast<double>(t.first + j), t.center), 0.5);
  return filter_value(a.filter, mul_rn(d, a.inv_filter_scale));
}

SLUICE_HOST_DEVICE inline double tap_weight_sum(const AxisResampling& a, const TapSpan& t) {
  double sum = 0.0;
  for (int32_t j = 0; j < t.count; j++) sum = add_rn(sum, tap_weight(a, t, j));
  return sum;
}

SLUICE_HOST_DEVICE inline double normalize_weight(double w, double sum) {
  return sum != 0.0 ? div_rn(w, sum) : w;
}

// Pillow's normalize_coeffs_8bpc: round half away from zero to kCoeffFractionBits.
SLUICE_HOST_DEVICE inline int32_t to_fixed(double k) {
  const double v = mul_rn(k, static_cast<double>(1 << kCoeffFractionBits));
  return k < 0.0 ? static_cast<int32_t>(add_rn(-0.5, v)) : static_cast<int32_t>(add_rn(0.5, v));
}

template <typename W>
SLUICE_HOST_DEVICE inline W convert_weight(double k);
template <>
SLUICE_HOST_DEVICE inline float convert_weight<float>(double k) {
  return static_cast<float>(k);
}
template <>
SLUICE_HOST_DEVICE inline int32_t convert_weight<int32_t>(double k) {
  return to_fixed(k);
}

// Writes the table entry of computed output i: first and count, and the normalised weights at
// weights[j * tap_stride] for j < count. W is float or int32_t (fixed point). Nearest-neighbour
// axes get one tap of weight 1 at the Pillow NEAREST position (O(f) walk, see above).
template <typename W>
SLUICE_HOST_DEVICE inline void axis_entry(const AxisResampling& a, int32_t i, int32_t* first,
                                          int32_t* count, W* weights, int64_t tap_stride) {
  const int32_t f = forward_index(a, i);
  if (a.filter == ResampleFilter::kNearest) {
    *first = nearest_input(nearest_position(a.origin, a.scale, f), a.in_size);
    *count = 1;
    weights[0] = convert_weight<W>(1.0);
    return;
  }
  const TapSpan t = filter_taps(a, f);
  const double sum = tap_weight_sum(a, t);
  for (int32_t j = 0; j < t.count; j++) {
    weights[j * tap_stride] = convert_weight<W>(normalize_weight(tap_weight(a, t, j), sum));
  }
  *first = t.first;
  *count = t.count;
}

}  // namespace sluice::kernels::detail
