#pragma once
// CPU kernels for fn.crop, fn.flip and EXIF orientation: copy a window of an image, optionally
// flipped and transposed (image_view.h, ImageTransform), into a dense output of the same layout
// and channel count. Pixels of the window outside the image take fill values, so one kernel
// serves the three out-of-bounds policies (apply the policy to the window first, crop_window.h).
// These are also the references of the CUDA kernels in crop_gpu.h.
//
// Element types: uint8_t, int8_t, uint16_t, int16_t, float16, float (explicitly instantiated).
// Layouts: HWC and CHW (input and output share the layout).
// Fill values: empty (all zeros), one value for every channel, or one per channel; converted to
// the element type by rounding to nearest even and saturating (crop_math.h).
//
// Thread safety: stateless functions; concurrent calls on disjoint outputs are safe.

#include <cstdint>
#include <span>
#include <type_traits>

#include "sluice/kernels/crop/crop_window.h"
#include "sluice/kernels/crop/image_view.h"

namespace sluice {

// Output height and width of `transform` applied to `window` (swapped when transposing).
inline void transformed_size(const CropWindow& window, ImageTransform transform,
                             int64_t* out_height, int64_t* out_width) {
  *out_height = transform.transpose ? window.w : window.h;
  *out_width = transform.transpose ? window.h : window.w;
}

// out = transpose?(flip?(in[window])), pixels outside `in` set to the fill values. `out` must have
// the size given by transformed_size(), the same layout and channel count as `in`, and must not
// overlap it. Throws InvalidArgument on shape, layout or fill_values mismatches, naming values.
template <typename T>
void crop_transform_cpu(std::type_identity_t<ImageView<const T>> in, ImageView<T> out,
                        const CropWindow& window, ImageTransform transform,
                        std::span<const float> fill_values);

// fn.crop: out = in[window] (window already passed through apply_out_of_bounds_policy).
template <typename T>
void crop_cpu(std::type_identity_t<ImageView<const T>> in, ImageView<T> out,
              const CropWindow& window, std::span<const float> fill_values = {}) {
  crop_transform_cpu<T>(in, out, window, ImageTransform{}, fill_values);
}

// fn.flip: out = in with columns (horizontal) and / or rows (vertical) reversed; same shape.
template <typename T>
void flip_cpu(std::type_identity_t<ImageView<const T>> in, ImageView<T> out, bool horizontal,
              bool vertical) {
  crop_transform_cpu<T>(in, out, CropWindow{0, 0, in.height, in.width},
                        ImageTransform{false, horizontal, vertical}, {});
}

// Makes an image decoded without EXIF handling upright (orientation 1..8, see
// exif_orientation_transform). `out` is width x height for orientations 5..8.
template <typename T>
void exif_orientation_cpu(std::type_identity_t<ImageView<const T>> in, ImageView<T> out,
                          int orientation) {
  crop_transform_cpu<T>(in, out, CropWindow{0, 0, in.height, in.width},
                        exif_orientation_transform(orientation), {});
}

}  // namespace sluice
