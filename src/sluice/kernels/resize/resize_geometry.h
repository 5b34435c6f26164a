#pragma once
// Output size and source window of fn.resize, following DALI's ResizeAttr
// (dali/operators/image/resize/resize_attr.cc): which argument gives the size, how missing
// extents follow from the others for each `mode`, `max_size`, the region of interest, rounding
// and the sub-pixel correction of the window. Pure functions: no allocation beyond the result,
// thread-safe.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sluice::kernels {

// How extents that were not given, or that conflict with the aspect ratio, are derived.
enum class ResizeMode : uint8_t {
  kDefault,     // given extents are used as is; missing ones use the geometric mean of the
                // given scales (so one given extent keeps the aspect ratio)
  kStretch,     // given extents are used as is; missing ones keep the input extent
  kNotSmaller,  // one scale for all axes, the largest of the given ones: no extent is smaller
                // than requested (then reduced further by max_size)
  kNotLarger,   // one scale for all axes, the smallest of the given ones: no extent is larger
                // than requested (nor than max_size)
};

// Parses DALI's names: "default", "stretch", "not_smaller", "not_larger".
// Throws InvalidArgument for anything else.
ResizeMode parse_resize_mode(std::string_view name);
std::string_view resize_mode_name(ResizeMode mode);

// fn.resize's size arguments for one 2D sample. Axis pairs are in shape order: {y (height),
// x (width)}. An argument that is std::nullopt was not given; this matters because DALI decides
// which way of giving the size is used by which arguments are present, not by their values.
struct ResizeArgs {
  // Ways of giving the size; exactly one must be used: resize_x and/or resize_y, `size`,
  // resize_shorter or resize_longer.
  std::optional<float> resize_x;  // output width; 0 = derive from the other axis; < 0 mirrors
  std::optional<float> resize_y;  // output height; 0 = derive from the other axis; < 0 mirrors
  std::optional<std::array<float, 2>> size;  // {height, width}; 0 = derive; < 0 mirrors
  std::optional<float> resize_shorter;       // = size {v, v} with mode not_smaller; must be >= 0
  std::optional<float> resize_longer;        // = size {v, v} with mode not_larger; must be >= 0

  // Mutually exclusive with resize_shorter / resize_longer; kDefault when not given.
  std::optional<ResizeMode> mode;
  // Upper limit per axis {height, width}; 0 = no limit on that axis. With not_smaller (and
  // resize_shorter) the limit wins and the aspect ratio is kept. A single DALI value is given
  // here as the same value twice.
  std::optional<std::array<float, 2>> max_size;

  // Region of interest {y, x}: both or neither. In input pixels, or fractions of the input
  // extent when roi_relative. roi_start > roi_end along an axis mirrors that axis.
  std::optional<std::array<float, 2>> roi_start;
  std::optional<std::array<float, 2>> roi_end;
  bool roi_relative = false;

  // DALI's subpixel_scale: when the exact output extent is fractional, the window is scaled
  // about its centre so that the scale factor stays the exact one (true, DALI's default);
  // otherwise the window is kept and the scale follows the rounded extent.
  bool subpixel_scale = true;
};

// Output extent and the source window it samples. Output pixel (y, x) has its centre at source
// coordinates (src_y0 + (y + 0.5) * (src_y1 - src_y0) / out_h,
//              src_x0 + (x + 0.5) * (src_x1 - src_x0) / out_w);
// src_y0 > src_y1 (or src_x0 > src_x1) means that axis is mirrored. Source coordinates are in
// pixels with pixel i covering [i, i + 1). The window may extend past the image (a sub-pixel
// correction or an explicit ROI can do that); the resampling kernels then clamp.
struct ResizeGeometry {
  int64_t out_h = 0;
  int64_t out_w = 0;
  double src_y0 = 0;
  double src_x0 = 0;
  double src_y1 = 0;
  double src_x1 = 0;
};

// DALI fn.resize's output-size rules for an input of in_h x in_w pixels:
//  * The requested extents come from resize_x / resize_y (missing = 0), `size`, or
//    resize_shorter / resize_longer (the value on both axes, mode not_smaller / not_larger).
//  * A reversed ROI or a negative requested extent mirrors the axis (both together cancel).
//  * The mode derives the final extents from the requested ones and the (ROI) input extents;
//    `max_size` limits them (see ResizeMode). Nothing requested keeps the input extents.
//  * Extents round to nearest (halves away from zero) and are at least 1 unless the input is
//    empty. With subpixel_scale, the window is then scaled about its centre by
//    rounded / exact extent so that the scale factor is the exact one.
// Arithmetic uses DALI's float/double mix, so extents equal DALI's at rounding ties.
// Throws InvalidArgument, naming the argument, for: no way or several ways of giving the size;
// mode together with resize_shorter / resize_longer; roi_start without roi_end or the reverse;
// non-finite values; negative resize_shorter, resize_longer, max_size or input extents; a
// non-empty output requested from an empty input; an output extent above 2^31 - 1.
ResizeGeometry compute_resize_geometry(int64_t in_h, int64_t in_w, const ResizeArgs& args);

}  // namespace sluice::kernels
