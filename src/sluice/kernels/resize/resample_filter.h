#pragma once
// Resampling filters of fn.resize and the per-axis setup that the CPU reference and the CUDA
// kernels share. Plain C++: no CUDA types.
//
// The resampling follows Pillow's libImaging/Resample.c (see Note [Pillow-compatible
// resampling] in resample_filter.cc): separable, every output pixel has its own normalised
// coefficient table over a contiguous run of input pixels, the filter support is widened by the
// downscale factor (antialiasing) and taps outside the image are dropped, not clamped.
//
// Thread safety: pure functions.

#include <cstdint>
#include <string_view>

namespace sluice::kernels {

// DALI's interpolation types (DALIInterpType), as resampling filters.
enum class ResampleFilter : uint8_t {
  kNearest,     // NN: the input pixel under the output pixel's centre (Pillow NEAREST)
  kLinear,      // LINEAR: triangle of radius 1 (Pillow BILINEAR)
  kTriangular,  // TRIANGULAR: LINEAR that always widens when downscaling, even without
                // antialias (DALI turns LINEAR + antialias into this when downscaling)
  kCubic,       // CUBIC: Keys cubic with a = -0.5, radius 2 (Pillow BICUBIC)
  kLanczos3,    // LANCZOS3: sinc(x) sinc(x / 3) on [-3, 3) (Pillow LANCZOS)
  kGaussian,    // GAUSSIAN: exp(-4 x^2) on (-1, 1), as DALI's Gaussian window of radius 1;
                // not interpolating (blurs even at scale 1)
};
inline constexpr ResampleFilter kAllResampleFilters[] = {
    ResampleFilter::kNearest, ResampleFilter::kLinear,   ResampleFilter::kTriangular,
    ResampleFilter::kCubic,   ResampleFilter::kLanczos3, ResampleFilter::kGaussian};

// Accepts DALI's names with or without the INTERP_ prefix, any case: NN, LINEAR, TRIANGULAR,
// CUBIC, LANCZOS3, GAUSSIAN. Throws InvalidArgument otherwise.
ResampleFilter parse_resample_filter(std::string_view name);
std::string_view resample_filter_name(ResampleFilter filter);  // "NN", "LINEAR", ...

// Filter choice for one sample (fn.resize's min_filter, mag_filter, antialias). DALI's
// interp_type sets both filters unless min_filter / mag_filter are given; the defaults (LINEAR,
// antialias) equal DALI's, which turns LINEAR into TRIANGULAR when downscaling.
struct ResampleFilters {
  ResampleFilter min_filter = ResampleFilter::kLinear;  // used on axes that are downscaled
  ResampleFilter mag_filter = ResampleFilter::kLinear;  // used on axes that are not
  // Downscaling by s > 1 widens the filter support by s (Pillow's antialiasing). Without it a
  // downscale samples the filter at its nominal support (kTriangular widens regardless).
  bool antialias = true;
};

// Fixed-point coefficients of the uint8 -> uint8 path: Pillow's PRECISION_BITS (32 - 8 - 2).
// Coefficients of one output pixel have sum |c| < 2 (checked by the tests), so 255 * sum stays
// below 2^31.
inline constexpr int kCoeffFractionBits = 22;

// Everything the coefficient computation needs for one axis of one sample. Built on the host by
// make_axis_resampling(); the coefficient math in detail/resample_math.h reads it identically on
// the CPU and on the GPU.
struct AxisResampling {
  double origin = 0;            // lower end of the source window, in input pixels
  double scale = 1;             // input pixels per output pixel, > 0
  double support = 0;           // filter radius in input pixels (nominal radius * widening)
  double inv_filter_scale = 1;  // 1 / widening: maps input distance to the filter argument
  int32_t in_size = 0;          // input extent
  int32_t out_size = 0;         // output extent of the whole resize (defines scale, mirroring)
  int32_t out_offset = 0;       // first output index computed (a crop of the output)
  int32_t out_count = 0;        // number of output indices computed
  int32_t max_taps = 1;         // upper bound of taps of one output pixel (table stride)
  ResampleFilter filter = ResampleFilter::kNearest;  // filter evaluated; never kTriangular
  bool mirror = false;  // output index i samples the window from its upper end
};

// Sets up one axis: `in_size` input pixels, source window [src_lo, src_hi) (src_lo > src_hi
// mirrors), `out_size` output pixels of which [out_offset, out_offset + out_count) are computed
// (out_count < 0: up to the end). The axis downscales when |src_hi - src_lo| > out_size.
// Throws InvalidArgument (message starts with `what`) for in_size < 1 or > 2^31 - 1, out_size
// out of the same range, a non-finite or empty window, or an output range outside [0, out_size].
AxisResampling make_axis_resampling(int64_t in_size, double src_lo, double src_hi, int64_t out_size,
                                    const ResampleFilters& filters, int64_t out_offset = 0,
                                    int64_t out_count = -1, std::string_view what = "resize");

// Input indices [begin, end) read by the computed outputs of the axis.
struct SourceRange {
  int32_t begin = 0;
  int32_t end = 0;
};
SourceRange axis_source_range(const AxisResampling& a);

// Coefficient table of the computed outputs of an axis, for the CPU reference: output i reads
// inputs first[i] .. first[i] + count[i] - 1 with weights[i * a.max_taps + j]. Float weights sum
// to 1 (to float rounding); fixed-point weights are Pillow's rounding of the same doubles to
// kCoeffFractionBits. Arrays hold a.out_count (weights: a.out_count * a.max_taps) entries.
void compute_axis_coeffs(const AxisResampling& a, int32_t* first, int32_t* count, float* weights);
void compute_axis_coeffs_fixed(const AxisResampling& a, int32_t* first, int32_t* count,
                               int32_t* weights);

}  // namespace sluice::kernels
