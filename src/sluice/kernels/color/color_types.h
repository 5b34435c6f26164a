#pragma once
// Descriptors of the colour kernels (CPU and CUDA): what one sample is and which operation runs.
// Plain data, no CUDA types.

#include <cstdint>

#include "sluice/core/float16.h"

namespace sluice::kernels::color {

enum class ColorOp : uint8_t {
  kMultiplyAdd,  // every element: in * m[0] + offset[0]
  kMatrix3,      // every 3-channel pixel: m (row-major 3x3) * pixel + offset
  // Colour space conversions of uint8 pixels.
  kSwapRB,  // RGB <-> BGR
  kRgbToGray,
  kBgrToGray,
  kGrayToRgb,  // and to BGR
  kRgbToYCbCr,
  kBgrToYCbCr,
  kYCbCrToRgb,
  kYCbCrToBgr,
  kGrayToYCbCr,
  kYCbCrToGray,
};

// Input and output channels per pixel of a conversion (1 for kMultiplyAdd: one element).
int in_channels(ColorOp op);
int out_channels(ColorOp op);

struct ColorSample {
  const void* in = nullptr;
  void* out = nullptr;
  int64_t pixels = 0;  // pixels of the op's channel counts (elements for kMultiplyAdd)
  float m[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  float offset[3] = {0, 0, 0};
};

}  // namespace sluice::kernels::color
