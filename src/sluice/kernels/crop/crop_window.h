#pragma once
// Crop windows and how they are placed: DALI's fixed crop (crop=(h, w) at crop_pos_y/x), DALI's
// slice (anchor + shape, absolute or relative) and the out-of-bounds policies that decide what
// happens when a window reaches outside its image. The random RandomResizedCrop rule lives in
// random_crop_window.h. Everything here is a pure function of its arguments (thread-safe), shared
// by fn.crop, fn.slice, fn.crop_mirror_normalize and the fused decoders, so that fused and
// unfused pipelines cut exactly the same pixels.

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include "sluice/core/crop_window.h"

namespace sluice {

// A rectangle of an image in pixels: rows [y, y + h), columns [x, x + w). y and x may be negative
// and the rectangle may reach past the image (then the out-of-bounds policy decides); h, w >= 0.

// What to do with the part of a window outside the image (DALI's `out_of_bounds_policy`).
enum class OutOfBoundsPolicy : uint8_t {
  kError,        // "error": a window not fully inside the image is an InvalidArgument
  kPad,          // "pad": keep the window; pixels outside the image take the fill values
  kTrimToShape,  // "trim_to_shape": intersect the window with the image (may become empty)
};

// Parses "error", "pad" or "trim_to_shape"; throws InvalidArgument for anything else.
OutOfBoundsPolicy parse_out_of_bounds_policy(std::string_view name);
std::string_view out_of_bounds_policy_name(OutOfBoundsPolicy policy);

// Applies `policy` to `window` on an image of `height` x `width` and returns the window the
// kernels must produce. kError throws InvalidArgument (mentioning the window and the image) when
// the window is not inside; kTrimToShape returns the intersection (h or w 0 when they do not
// overlap, placed at the clamped corner); kPad returns the window unchanged. Negative sizes throw
// InvalidArgument under every policy.
CropWindow apply_out_of_bounds_policy(const CropWindow& window, int64_t height, int64_t width,
                                      OutOfBoundsPolicy policy);

// DALI's fixed crop: a crop_h x crop_w window whose corner is at the relative position
// (pos_y, pos_x) in [0, 1] of the free range: y = roundf(pos_y * float(height - crop_h)),
// likewise x; std::roundf rounds halves away from zero, as DALI's CropAttr does. For a window
// that fits (crop <= size) this equals the formula of DALI's CMN test,
// int(pos * (size - crop) + 0.5); for a window larger than the image the corner is negative
// (e.g. pos 0.5, size 40, crop 80 -> -20, where the test formula would say -19) and the policy
// decides. crop_h / crop_w <= 0 mean "the whole extent" (DALI: no crop argument along that axis).
// Throws InvalidArgument when pos_y / pos_x are outside [0, 1] or not finite.
CropWindow fixed_crop_window(int64_t height, int64_t width, int64_t crop_h, int64_t crop_w,
                             float pos_y, float pos_x);

// DALI's slice window from an anchor and a shape along (y, x), each either absolute (pixels) or
// relative to the image extent. Rounds like DALI (std::round: halves away from zero) in double:
//   relative anchor and shape: y0 = round(height * ay), y1 = round(height * (ay + sh)), h = y1 - y0
//   relative anchor only:      y0 = round(height * ay), h = round(sh)
//   relative shape only:       y0 = round(ay),          h = round(height * sh)
//   absolute:                  y0 = round(ay),          h = round(sh)
// and the same for x. Throws InvalidArgument for non-finite arguments or a negative shape.
struct SliceArgs {
  double anchor_y = 0, anchor_x = 0;
  double shape_h = 0, shape_w = 0;
  bool relative_anchor = false;
  bool relative_shape = false;
};
CropWindow slice_window(int64_t height, int64_t width, const SliceArgs& args);

}  // namespace sluice
