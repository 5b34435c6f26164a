#include "sluice/kernels/resize/resample_filter.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "sluice/core/error.h"
#include "sluice/kernels/resize/detail/resample_math.h"

// Note [Pillow-compatible resampling]
// fn.resize must agree with Pillow's Image.resize (DALI's own tests compare against it), so the
// resampling is Pillow's libImaging/Resample.c, step for step:
//  * Per axis, output pixel x has its centre at origin + (x + 0.5) * scale in input pixels,
//    scale = window extent / output extent.
//  * Downscaling (scale > 1) widens the filter by the scale: support = radius * scale and the
//    filter is evaluated at distance / scale (antialiasing); upscaling uses the nominal filter.
//  * The taps are the input pixels whose centres lie within the support; those outside the
//    image are dropped and the remaining weights are normalised to sum to 1 (Pillow does not
//    clamp coordinates, so edges are not over-weighted).
//  * Two passes, horizontal then vertical, over only the input rows the vertical pass needs.
//  * uint8 -> uint8 runs in Pillow's fixed point: coefficients rounded to 22 fraction bits,
//    accumulators start at 1/2 (round half up), results saturate to [0, 255], and the
//    intermediate image is uint8. This makes the output bit-identical to Pillow's.
//  * NEAREST is Pillow's affine nearest-neighbour walk (see detail::nearest_position).
// Float input or output uses the same coefficients as floats, a float intermediate and float
// accumulation, with no rounding before the end.
// Differences from Pillow: windows (ROIs) may be mirrored or extend past the image (output
// centres outside the image are clamped to the edge, see detail::filter_taps); RGBA is
// resampled per channel (Pillow premultiplies alpha); TRIANGULAR and GAUSSIAN are DALI's.

namespace sluice::kernels {
namespace {

constexpr int64_t kMaxExtent = std::numeric_limits<int32_t>::max();

bool valid_filter(ResampleFilter f) {
  return static_cast<unsigned>(f) <= static_cast<unsigned>(ResampleFilter::kGaussian);
}

template <typename W>
void compute_coeffs(const AxisResampling& a, int32_t* first, int32_t* count, W* weights) {
  const int32_t n = a.out_count;
  if (n == 0) return;
  if (a.filter == ResampleFilter::kNearest) {
    // The walk of detail::nearest_position, done once for the whole axis.
    const int32_t f0 = detail::forward_index(a, 0);
    const int32_t f1 = detail::forward_index(a, n - 1);
    const int32_t f_lo = std::min(f0, f1);
    const int32_t f_hi = std::max(f0, f1);
    double x = add_rn(a.origin, mul_rn(a.scale, 0.5));
    for (int32_t f = 0; f <= f_hi; f++) {
      if (f >= f_lo) {
        const int32_t i = a.mirror ? a.out_size - 1 - f - a.out_offset : f - a.out_offset;
        first[i] = detail::nearest_input(x, a.in_size);
        count[i] = 1;
        weights[static_cast<int64_t>(i) * a.max_taps] = detail::convert_weight<W>(1.0);
      }
      x = add_rn(x, a.scale);
    }
    return;
  }
  // detail::axis_entry evaluates each tap's filter twice (for the sum, then for the weight), which
  // suits a GPU thread; here the values are kept, in the same order, for the usual tap counts.
  // Same operations on the same values: the same bits.
  constexpr int32_t kKept = 64;
  double kept[kKept];
  for (int32_t i = 0; i < n; i++) {
    W* w = weights + static_cast<int64_t>(i) * a.max_taps;
    const detail::TapSpan t = detail::filter_taps(a, detail::forward_index(a, i));
    if (t.count > kKept) {
      detail::axis_entry<W>(a, i, first + i, count + i, w, 1);
      continue;
    }
    double sum = 0.0;
    for (int32_t j = 0; j < t.count; j++) {
      kept[j] = detail::tap_weight(a, t, j);
      sum = add_rn(sum, kept[j]);
    }
    for (int32_t j = 0; j < t.count; j++) {
      w[j] = detail::convert_weight<W>(detail::normalize_weight(kept[j], sum));
    }
    first[i] = t.first;
    count[i] = t.count;
  }
}

}  // namespace

ResampleFilter parse_resample_filter(std::string_view name) {
  std::string s(name);
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (s.rfind("INTERP_", 0) == 0) s = s.substr(7);
  if (s == "NN") return ResampleFilter::kNearest;
  if (s == "LINEAR") return ResampleFilter::kLinear;
  if (s == "TRIANGULAR") return ResampleFilter::kTriangular;
  if (s == "CUBIC") return ResampleFilter::kCubic;
  if (s == "LANCZOS3") return ResampleFilter::kLanczos3;
  if (s == "GAUSSIAN") return ResampleFilter::kGaussian;
  throw InvalidArgument(make_string("resize: interpolation type must be one of NN, LINEAR, ",
                                    "TRIANGULAR, CUBIC, LANCZOS3, GAUSSIAN; got \"", name, "\""));
}

std::string_view resample_filter_name(ResampleFilter filter) {
  switch (filter) {
    case ResampleFilter::kNearest:
      return "NN";
    case ResampleFilter::kLinear:
      return "LINEAR";
    case ResampleFilter::kTriangular:
      return "TRIANGULAR";
    case ResampleFilter::kCubic:
      return "CUBIC";
    case ResampleFilter::kLanczos3:
      return "LANCZOS3";
    case ResampleFilter::kGaussian:
      return "GAUSSIAN";
  }
  return "?";
}

AxisResampling make_axis_resampling(int64_t in_size, double src_lo, double src_hi, int64_t out_size,
                                    const ResampleFilters& filters, int64_t out_offset,
                                    int64_t out_count, std::string_view what) {
  SLUICE_CHECK(in_size >= 1 && in_size <= kMaxExtent, InvalidArgument, what,
               ": input extent must be in [1, 2^31 - 1], got ", in_size);
  SLUICE_CHECK(out_size >= 1 && out_size <= kMaxExtent, InvalidArgument, what,
               ": output extent must be in [1, 2^31 - 1], got ", out_size);
  SLUICE_CHECK(std::isfinite(src_lo) && std::isfinite(src_hi) && src_lo != src_hi, InvalidArgument,
               what, ": source window [", src_lo, ", ", src_hi, ") must be finite and non-empty");
  if (out_count < 0) out_count = out_size - out_offset;
  SLUICE_CHECK(out_offset >= 0 && out_count >= 0 && out_offset <= out_size &&
                   out_count <= out_size - out_offset,
               InvalidArgument, what, ": output range [", out_offset, ", ", out_offset + out_count,
               ") is outside the output extent ", out_size);
  SLUICE_CHECK(valid_filter(filters.min_filter), InvalidArgument, what,
               ": invalid min_filter value ", static_cast<int>(filters.min_filter));
  SLUICE_CHECK(valid_filter(filters.mag_filter), InvalidArgument, what,
               ": invalid mag_filter value ", static_cast<int>(filters.mag_filter));

  AxisResampling a;
  a.in_size = static_cast<int32_t>(in_size);
  a.out_size = static_cast<int32_t>(out_size);
  a.out_offset = static_cast<int32_t>(out_offset);
  a.out_count = static_cast<int32_t>(out_count);
  a.mirror = src_hi < src_lo;
  a.origin = std::min(src_lo, src_hi);
  const double extent = std::fabs(src_hi - src_lo);
  a.scale = extent / static_cast<double>(out_size);

  // DALI picks the filter by comparing extents (out < in is a downscale).
  const bool downscale = extent > static_cast<double>(out_size);
  const ResampleFilter f = downscale ? filters.min_filter : filters.mag_filter;
  const bool widen = downscale && f != ResampleFilter::kNearest &&
                     (filters.antialias || f == ResampleFilter::kTriangular);
  const double filter_scale = widen ? a.scale : 1.0;
  a.filter = f == ResampleFilter::kTriangular ? ResampleFilter::kLinear : f;
  a.support = detail::kNominalSupport[static_cast<int>(f)] * filter_scale;
  a.inv_filter_scale = 1.0 / filter_scale;
  if (a.filter == ResampleFilter::kNearest) {
    a.max_taps = 1;
  } else {
    // Pillow's ksize = 2 ceil(support) + 1; no more than the input has.
    const double taps = 2.0 * std::ceil(a.support) + 1.0;
    a.max_taps = static_cast<int32_t>(std::min(taps, static_cast<double>(in_size)));
  }
  return a;
}

SourceRange axis_source_range(const AxisResampling& a) {
  if (a.out_count == 0) return {};
  // First and last taps are monotonic in the output index, so the two ends bound the range.
  SourceRange r{a.in_size, 0};
  for (int32_t i : {0, a.out_count - 1}) {
    const int32_t f = detail::forward_index(a, i);
    int32_t first, count;
    if (a.filter == ResampleFilter::kNearest) {
      first = detail::nearest_input(detail::nearest_position(a.origin, a.scale, f), a.in_size);
      count = 1;
    } else {
      const detail::TapSpan t = detail::filter_taps(a, f);
      first = t.first;
      count = t.count;
    }
    r.begin = std::min(r.begin, first);
    r.end = std::max(r.end, first + count);
  }
  return r;
}

void compute_axis_coeffs(const AxisResampling& a, int32_t* first, int32_t* count, float* weights) {
  compute_coeffs(a, first, count, weights);
}

void compute_axis_coeffs_fixed(const AxisResampling& a, int32_t* first, int32_t* count,
                               int32_t* weights) {
  compute_coeffs(a, first, count, weights);
}

}  // namespace sluice::kernels
