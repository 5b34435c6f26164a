#pragma once
// Argument checks shared by the CPU reference and the GPU batch planner of the fused resize +
// normalize, so that both refuse the same inputs with the same messages.

#include <cmath>
#include <string_view>

#include "sluice/core/error.h"
#include "sluice/kernels/resize/detail/resize_pixel.h"
#include "sluice/kernels/resize/resize_params.h"

namespace sluice::kernels::detail {

// The crop with negative extents resolved; throws InvalidArgument unless it lies inside the
// out_h x out_w resized image.
inline ResizeCrop resolve_crop(const ResizeCrop& crop, int64_t out_h, int64_t out_w,
                               std::string_view what) {
  ResizeCrop c = crop;
  if (c.height < 0) c.height = out_h - c.y;
  if (c.width < 0) c.width = out_w - c.x;
  SLUICE_CHECK(c.y >= 0 && c.x >= 0 && c.height >= 0 && c.width >= 0 && c.y <= out_h &&
                   c.x <= out_w && c.height <= out_h - c.y && c.width <= out_w - c.x,
               InvalidArgument, what, ": crop (y ", crop.y, ", x ", crop.x, ", ", crop.height, "x",
               crop.width, ") is not inside the ", out_h, "x", out_w, " resized image");
  return c;
}

inline void check_normalize_params(const ResizeNormalizeParams& n, int64_t channels,
                                   std::string_view what) {
  SLUICE_CHECK(channels >= 1 && channels <= 4, InvalidArgument, what,
               ": normalisation supports 1 to 4 channels, got ", channels);
  for (int64_t c = 0; c < channels; c++) {
    SLUICE_CHECK(std::isfinite(n.mean[c]), InvalidArgument, what, ": mean[", c, "] = ", n.mean[c],
                 " is not finite");
    SLUICE_CHECK(std::isfinite(n.stddev[c]) && n.stddev[c] != 0, InvalidArgument, what, ": stddev[",
                 c, "] = ", n.stddev[c], " must be finite and non-zero");
  }
  SLUICE_CHECK(std::isfinite(n.scale) && std::isfinite(n.shift), InvalidArgument, what, ": scale (",
               n.scale, ") and shift (", n.shift, ") must be finite");
  for (int64_t c = 0; c < channels; c++) {
    SLUICE_CHECK(std::isfinite(normalize_multiplier(n.scale, n.stddev[c])), InvalidArgument, what,
                 ": scale / stddev[", c, "] = ", n.scale, " / ", n.stddev[c], " overflows float");
  }
}

inline void check_normalized_type(DType out_type, std::string_view what) {
  SLUICE_CHECK(out_type == DType::kFloat32 || out_type == DType::kFloat16, InvalidArgument, what,
               ": normalised output type must be FLOAT or FLOAT16, got ", dtype_name(out_type));
}

}  // namespace sluice::kernels::detail
