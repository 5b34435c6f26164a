#pragma once
// GridMask: zeroes the pixels of an HWC image that fall in the squares of a rotated, shifted
// grid. The mask of a pixel is computed by one host-device function in DALI's float arithmetic
// (each operation rounded, never fused), so the CPU and CUDA kernels agree bit for bit; the
// kernels only keep or zero element bits, so they work per element size.

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "sluice/kernels/common/host_device.h"

namespace sluice::kernels {

struct GridMaskSample {
  void* out;
  const void* in;
  int64_t height, width, channels;
  float ca, sa;  // cos(angle) / tile, sin(angle) / tile
  float sx, sy;  // shift / tile
  float ratio;
};

// `tile` > 0. The float sine and cosine, on the host (the device gets the results), as DALI.
inline GridMaskSample make_grid_mask_sample(void* out, const void* in, int64_t height,
                                            int64_t width, int64_t channels, int tile, float ratio,
                                            float angle, float shift_x, float shift_y) {
  const float t = static_cast<float>(tile);
  return {
      out,         in,          height, width, channels, std::cos(angle) / t, std::sin(angle) / t,
      shift_x / t, shift_y / t, ratio};
}

// Whether pixel (y, x) is kept: it lies outside the grid's black squares.
SLUICE_HOST_DEVICE inline bool grid_mask_keeps(const GridMaskSample& s, int64_t y, int64_t x) {
  const float fy_row = add_rn(-s.sy, mul_rn(static_cast<float>(y), s.ca));
  const float fx_row = add_rn(-s.sx, mul_rn(static_cast<float>(y), -s.sa));
  const float fx = add_rn(fx_row, mul_rn(static_cast<float>(x), s.ca));
  const float fy = add_rn(fy_row, mul_rn(static_cast<float>(x), s.sa));
  return sub_rn(fx, floorf(fx)) >= s.ratio || sub_rn(fy, floorf(fy)) >= s.ratio;
}

// One sample on the calling thread.
void grid_mask_cpu(const GridMaskSample& s, size_t elem_size);

// CUDA: one launch for all samples (descriptors in device memory); `max_pixels` the largest
// height * width.
void grid_mask_gpu(const GridMaskSample* samples, int num_samples, int64_t max_pixels,
                   size_t elem_size, void* stream);

}  // namespace sluice::kernels
