#pragma once
// The RandomResizedCrop window rule of torchvision (transforms.RandomResizedCrop.get_params), used
// by fn.random_resized_crop and decoders.image_random_crop so that the fused decoder and the
// unfused pipeline cut the same window for the same (seed, epoch, sample).
//
// Rule, for an image of H x W:
//   up to num_attempts times:
//     target_area = H * W * uniform(area_min, area_max)
//     aspect      = exp(uniform(log(aspect_min), log(aspect_max)))
//     w = round(sqrt(target_area * aspect)), h = round(sqrt(target_area / aspect))
//     if 0 < w <= W and 0 < h <= H: y = uniform integer in [0, H - h], x in [0, W - w]; done
//   fallback (torchvision's central crop), with in_ratio = W / H:
//     in_ratio < aspect_min: w = W, h = round(W / aspect_min)
//     in_ratio > aspect_max: h = H, w = round(H * aspect_max)
//     otherwise the whole image; the window is centred: y = (H - h) / 2, x = (W - w) / 2 (floor).
// round() is Python's round: halves go to the even neighbour. The arithmetic is double precision
// (torchvision draws float32 uniforms and computes in float64; with a different generator the
// draws differ anyway, the rule and its rounding are the same).
//
// Draws, all from the SampleRng passed in: per attempt two uniform_double() (area, then log
// aspect) and, on acceptance, below(H - h + 1) then below(W - w + 1). The rule is deterministic
// given the generator state, so (op seed, epoch, sample id) fixes the window.
//
// Deviation from torchvision, documented: when the fallback would produce a zero extent (only
// possible with pathological aspect ranges such as [8, 9] on a 1-pixel-wide image), it is
// raised to 1 so that the window is never empty.
//
// Thread safety: pure functions; the SampleRng is the caller's and must not be shared.

#include <cstdint>

#include "sluice/core/rng.h"
#include "sluice/kernels/crop/crop_window.h"

namespace sluice {

struct RandomResizedCropParams {
  // DALI's defaults: random_area [0.08, 1], random_aspect_ratio [3/4, 4/3], num_attempts 10.
  double area_min = 0.08;
  double area_max = 1.0;
  double aspect_min = 3.0 / 4.0;
  double aspect_max = 4.0 / 3.0;
  int num_attempts = 10;

  // Throws InvalidArgument (naming the argument and its values) unless
  // 0 < area_min <= area_max (finite), 0 < aspect_min <= aspect_max (finite) and
  // num_attempts >= 1. area_max may exceed 1 (then attempts can fail and fall back).
  void validate() const;
};

// Python's round(): nearest integer, halves to the even neighbour. Independent of the floating
// point environment.
double round_half_even(double v);

// The window of the rule above for an H x W image (H, W >= 1, below 2^31; InvalidArgument
// otherwise). Validates `params`. The result always lies inside the image and is non-empty.
CropWindow random_resized_crop_window(int64_t height, int64_t width,
                                      const RandomResizedCropParams& params, SampleRng& rng);

// torchvision's fallback window alone (see the rule above). Exposed for tests and for decoders
// that must reproduce the fallback without drawing.
CropWindow random_resized_crop_fallback(int64_t height, int64_t width, double aspect_min,
                                        double aspect_max);

}  // namespace sluice
