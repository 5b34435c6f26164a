#pragma once
// Argument checks shared by the CPU and GPU entry points of this folder (internal). Each throws
// InvalidArgument naming the argument and the offending values.

#include <cstdint>
#include <span>

#include "sluice/kernels/crop/crop_window.h"
#include "sluice/kernels/crop/image_view.h"

namespace sluice::crop_detail {

// fill_values must be empty, hold one value, or one per channel.
void check_fill_values(std::span<const float> fill_values, int64_t channels);
// The fill value of channel c (0 when empty); check_fill_values() first.
inline float fill_value(std::span<const float> fill_values, int64_t c) {
  if (fill_values.empty()) return 0.0f;
  return fill_values.size() == 1 ? fill_values[0] : fill_values[static_cast<size_t>(c)];
}

struct ImageDims {
  int64_t height, width, channels;
  ImageLayout layout;
  const void* data;
};

// Checks in/out of crop_transform_*: non-negative sizes, matching layout and channels, out of
// the transformed window size, non-null data where there are elements. `sample` (or -1) is
// quoted in messages.
void check_crop_transform(const ImageDims& in, const ImageDims& out, const CropWindow& window,
                          ImageTransform transform, int64_t sample = -1);

}  // namespace sluice::crop_detail
