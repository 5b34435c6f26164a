#include "sluice/kernels/crop/crop_window.h"

#include <algorithm>
#include <cmath>

#include "sluice/core/error.h"

namespace sluice {

OutOfBoundsPolicy parse_out_of_bounds_policy(std::string_view name) {
  if (name == "error") return OutOfBoundsPolicy::kError;
  if (name == "pad") return OutOfBoundsPolicy::kPad;
  if (name == "trim_to_shape") return OutOfBoundsPolicy::kTrimToShape;
  throw InvalidArgument(make_string("out_of_bounds_policy: expected \"error\", \"pad\" or ",
                                    "\"trim_to_shape\", got \"", name, "\""));
}

std::string_view out_of_bounds_policy_name(OutOfBoundsPolicy policy) {
  switch (policy) {
    case OutOfBoundsPolicy::kError:
      return "error";
    case OutOfBoundsPolicy::kPad:
      return "pad";
    case OutOfBoundsPolicy::kTrimToShape:
      return "trim_to_shape";
  }
  return "invalid";
}

CropWindow apply_out_of_bounds_policy(const CropWindow& window, int64_t height, int64_t width,
                                      OutOfBoundsPolicy policy) {
  SLUICE_CHECK(height >= 0 && width >= 0, InvalidArgument, "image shape must not be negative, got ",
               height, "x", width);
  SLUICE_CHECK(window.h >= 0 && window.w >= 0, InvalidArgument,
               "crop window shape must not be negative, got ", to_string(window));
  switch (policy) {
    case OutOfBoundsPolicy::kError:
      SLUICE_CHECK(window.inside(height, width), InvalidArgument, "crop window ", to_string(window),
                   " is outside the ", height, "x", width,
                   " image and out_of_bounds_policy is \"error\" (use \"pad\" or "
                   "\"trim_to_shape\")");
      return window;
    case OutOfBoundsPolicy::kPad:
      return window;
    case OutOfBoundsPolicy::kTrimToShape: {
      // Clamp both corners into the image; an empty intersection keeps a clamped corner and a
      // zero extent so that callers can still allocate (empty) outputs.
      int64_t y0 = std::clamp<int64_t>(window.y, 0, height);
      int64_t x0 = std::clamp<int64_t>(window.x, 0, width);
      int64_t y1 = std::clamp<int64_t>(window.y + window.h, 0, height);
      int64_t x1 = std::clamp<int64_t>(window.x + window.w, 0, width);
      return CropWindow{y0, x0, std::max<int64_t>(y1 - y0, 0), std::max<int64_t>(x1 - x0, 0)};
    }
  }
  throw InvalidArgument(
      make_string("out_of_bounds_policy: invalid value ", static_cast<int>(policy)));
}

CropWindow fixed_crop_window(int64_t height, int64_t width, int64_t crop_h, int64_t crop_w,
                             float pos_y, float pos_x) {
  SLUICE_CHECK(height >= 0 && width >= 0, InvalidArgument, "image shape must not be negative, got ",
               height, "x", width);
  SLUICE_CHECK(std::isfinite(pos_y) && pos_y >= 0.0f && pos_y <= 1.0f, InvalidArgument,
               "crop_pos_y must be in [0, 1], got ", pos_y);
  SLUICE_CHECK(std::isfinite(pos_x) && pos_x >= 0.0f && pos_x <= 1.0f, InvalidArgument,
               "crop_pos_x must be in [0, 1], got ", pos_x);
  CropWindow win;
  win.h = crop_h > 0 ? crop_h : height;
  win.w = crop_w > 0 ? crop_w : width;
  // Single precision on purpose: DALI computes the anchor in float.
  win.y = static_cast<int64_t>(std::roundf(pos_y * static_cast<float>(height - win.h)));
  win.x = static_cast<int64_t>(std::roundf(pos_x * static_cast<float>(width - win.w)));
  return win;
}

namespace {

int64_t round_checked(double v, const char* what) {
  SLUICE_CHECK(std::isfinite(v) && std::fabs(v) < 0x1p62, InvalidArgument, what,
               " must be finite and representable, got ", v);
  return static_cast<int64_t>(std::round(v));
}

// Start and extent along one axis, see slice_window() in the header.
void slice_axis(int64_t extent, double anchor, double shape, bool rel_anchor, bool rel_shape,
                const char* anchor_name, const char* shape_name, int64_t* start, int64_t* size) {
  SLUICE_CHECK(std::isfinite(anchor), InvalidArgument, anchor_name, " must be finite, got ",
               anchor);
  SLUICE_CHECK(std::isfinite(shape) && shape >= 0, InvalidArgument, shape_name,
               " must be finite and non-negative, got ", shape);
  const double e = static_cast<double>(extent);
  if (rel_anchor && rel_shape) {
    *start = round_checked(e * anchor, anchor_name);
    *size = round_checked(e * (anchor + shape), shape_name) - *start;
  } else {
    *start = round_checked(rel_anchor ? e * anchor : anchor, anchor_name);
    *size = round_checked(rel_shape ? e * shape : shape, shape_name);
  }
}

}  // namespace

CropWindow slice_window(int64_t height, int64_t width, const SliceArgs& a) {
  SLUICE_CHECK(height >= 0 && width >= 0, InvalidArgument, "image shape must not be negative, got ",
               height, "x", width);
  CropWindow win;
  slice_axis(height, a.anchor_y, a.shape_h, a.relative_anchor, a.relative_shape, "slice anchor y",
             "slice shape h", &win.y, &win.h);
  slice_axis(width, a.anchor_x, a.shape_w, a.relative_anchor, a.relative_shape, "slice anchor x",
             "slice shape w", &win.x, &win.w);
  return win;
}

}  // namespace sluice
