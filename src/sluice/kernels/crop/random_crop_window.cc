#include "sluice/kernels/crop/random_crop_window.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sluice/core/error.h"

namespace sluice {

void RandomResizedCropParams::validate() const {
  SLUICE_CHECK(
      std::isfinite(area_min) && std::isfinite(area_max) && area_min > 0 && area_min <= area_max,
      InvalidArgument, "random_area must satisfy 0 < min <= max (finite), got [", area_min, ", ",
      area_max, "]");
  SLUICE_CHECK(std::isfinite(aspect_min) && std::isfinite(aspect_max) && aspect_min > 0 &&
                   aspect_min <= aspect_max,
               InvalidArgument, "random_aspect_ratio must satisfy 0 < min <= max (finite), got [",
               aspect_min, ", ", aspect_max, "]");
  SLUICE_CHECK(num_attempts >= 1, InvalidArgument, "num_attempts must be at least 1, got ",
               num_attempts);
}

double round_half_even(double v) {
  // floor() is exact; comparing the remainder with 0.5 avoids depending on the rounding mode
  // that std::nearbyint would use.
  double f = std::floor(v);
  double r = v - f;
  if (r > 0.5) return f + 1.0;
  if (r < 0.5) return f;
  return std::fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

namespace {

void check_image_shape(int64_t height, int64_t width) {
  SLUICE_CHECK(height >= 1 && width >= 1 && height <= std::numeric_limits<int32_t>::max() &&
                   width <= std::numeric_limits<int32_t>::max(),
               InvalidArgument, "random crop: image shape must be in [1, 2^31) per axis, got ",
               height, "x", width);
}

}  // namespace

CropWindow random_resized_crop_fallback(int64_t height, int64_t width, double aspect_min,
                                        double aspect_max) {
  check_image_shape(height, width);
  const double in_ratio = static_cast<double>(width) / static_cast<double>(height);
  int64_t w = width, h = height;
  if (in_ratio < aspect_min) {
    h = static_cast<int64_t>(round_half_even(static_cast<double>(width) / aspect_min));
  } else if (in_ratio > aspect_max) {
    w = static_cast<int64_t>(round_half_even(static_cast<double>(height) * aspect_max));
  }
  // Mathematically h <= H and w <= W already (the ratio test bounds them); the clamps only guard
  // against the documented zero-extent corner case and rounding at the limits.
  h = std::clamp<int64_t>(h, 1, height);
  w = std::clamp<int64_t>(w, 1, width);
  return CropWindow{(height - h) / 2, (width - w) / 2, h, w};
}

CropWindow random_resized_crop_window(int64_t height, int64_t width,
                                      const RandomResizedCropParams& params, SampleRng& rng) {
  params.validate();
  check_image_shape(height, width);
  const double area = static_cast<double>(height) * static_cast<double>(width);
  const double log_min = std::log(params.aspect_min);
  const double log_max = std::log(params.aspect_max);
  for (int attempt = 0; attempt < params.num_attempts; ++attempt) {
    // Both draws are taken on every attempt, in this order, so that the stream is consumed the
    // same way whatever the outcome.
    const double u_area = rng.uniform_double();
    const double u_aspect = rng.uniform_double();
    const double target_area =
        area * (params.area_min + (params.area_max - params.area_min) * u_area);
    const double aspect = std::exp(log_min + (log_max - log_min) * u_aspect);
    const double wf = round_half_even(std::sqrt(target_area * aspect));
    const double hf = round_half_even(std::sqrt(target_area / aspect));
    if (wf > 0 && wf <= static_cast<double>(width) && hf > 0 && hf <= static_cast<double>(height)) {
      const auto w = static_cast<int64_t>(wf);
      const auto h = static_cast<int64_t>(hf);
      const auto y = static_cast<int64_t>(rng.below(static_cast<uint32_t>(height - h + 1)));
      const auto x = static_cast<int64_t>(rng.below(static_cast<uint32_t>(width - w + 1)));
      return CropWindow{y, x, h, w};
    }
  }
  return random_resized_crop_fallback(height, width, params.aspect_min, params.aspect_max);
}

}  // namespace sluice
