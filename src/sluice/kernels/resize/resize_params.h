#pragma once
// Parameter types shared by the resize kernels (CPU reference, CUDA, fused resize + normalize).
// Plain C++ (no CUDA types); plain values, no shared state. Views do not own their data.

#include <array>
#include <cstdint>

#include "sluice/core/dtype.h"
#include "sluice/kernels/resize/resample_filter.h"
#include "sluice/kernels/resize/resize_geometry.h"

namespace sluice::kernels {

// An interleaved image: pixel (y, x) channel c is at data[y * row_stride + x * channels + c].
struct HwcImage {
  void* data = nullptr;
  DType type = DType::kUInt8;
  int64_t height = 0;
  int64_t width = 0;
  int64_t channels = 0;
  int64_t row_stride = 0;  // elements from one row to the next; 0 means width * channels
};

struct ConstHwcImage {
  const void* data = nullptr;
  DType type = DType::kUInt8;
  int64_t height = 0;
  int64_t width = 0;
  int64_t channels = 0;
  int64_t row_stride = 0;  // elements from one row to the next; 0 means width * channels

  ConstHwcImage() = default;
  ConstHwcImage(const void* d, DType t, int64_t h, int64_t w, int64_t c, int64_t stride = 0)
      : data(d), type(t), height(h), width(w), channels(c), row_stride(stride) {}
  ConstHwcImage(const HwcImage& im)  // NOLINT(google-explicit-constructor): view conversion
      : data(im.data),
        type(im.type),
        height(im.height),
        width(im.width),
        channels(im.channels),
        row_stride(im.row_stride) {}
};

// What to compute for one sample: the output extent and source window (usually from
// compute_resize_geometry) and the filters.
struct ResizeSampleParams {
  ResizeGeometry geometry;
  ResampleFilters filters;
};

// The part of a resized image that the fused resize + normalize writes, in resized-image pixels
// (crop_mirror_normalize's crop after a resize). Negative height / width: to the end.
struct ResizeCrop {
  int64_t y = 0;
  int64_t x = 0;
  int64_t height = -1;
  int64_t width = -1;
};

// DALI crop_mirror_normalize's normalisation: out = (v - mean[c]) / stddev[c] * scale + shift,
// evaluated as fma(v - mean[c], k[c], shift) with k[c] = scale / stddev[c] rounded once to
// float (crop_detail::cmn_normalize, the arithmetic of crop_mirror_normalize itself),
// identically on the CPU and the GPU. Channels beyond the image's are ignored.
struct ResizeNormalizeParams {
  std::array<float, 4> mean{0, 0, 0, 0};
  std::array<float, 4> stddev{1, 1, 1, 1};
  float scale = 1;
  float shift = 0;
};

enum class ResizeOutputLayout : uint8_t {
  kHWC,  // interleaved, height x width x channels
  kCHW,  // planar, channels x height x width
};

}  // namespace sluice::kernels
