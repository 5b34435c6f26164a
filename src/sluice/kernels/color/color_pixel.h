#pragma once
// Per-pixel arithmetic of the colour operators, compiled for the host (CPU kernels) and the
// device (CUDA kernels) from one source so that both give the same bits. The arithmetic is
// DALI's: float products and sums in DALI's order, then its conversion to the output type (round
// half away from zero, saturate). No CUDA types; safe to include anywhere.

#include <cstdint>

#include "sluice/kernels/color/color_types.h"
#include "sluice/kernels/common/dali_convert.h"
#include "sluice/kernels/common/host_device.h"

namespace sluice::kernels::color {

// in * mul + add, element by element (brightness_contrast).
template <typename Out, typename In>
SLUICE_HOST_DEVICE inline void multiply_add_element(const In* in, Out* out, int64_t i, float mul,
                                                    float add) {
  out[i] = convert_sat<Out>(add_rn(mul_rn(to_float(in[i]), mul), add));
}

// m * rgb + offset for the 3-channel pixel p (hsv, hue, saturation, color_twist): each row summed
// left to right, then the offset added.
template <typename Out, typename In>
SLUICE_HOST_DEVICE inline void matrix_pixel(const In* in, Out* out, int64_t p,
                                            const ColorSample& s) {
  const float x0 = to_float(in[3 * p]), x1 = to_float(in[3 * p + 1]), x2 = to_float(in[3 * p + 2]);
  SLUICE_UNROLL
  for (int r = 0; r < 3; ++r) {
    float v = mul_rn(s.m[3 * r], x0);
    v = add_rn(v, mul_rn(s.m[3 * r + 1], x1));
    v = add_rn(v, mul_rn(s.m[3 * r + 2], x2));
    out[3 * p + r] = convert_sat<Out>(add_rn(v, s.offset[r]));
  }
}

// ---- color_space_conversion (uint8): DALI's CPU formulas ---------------------------------------
// YCbCr is ITU-R BT.601 with 16..235 luma and 16..240 chroma: JPEG's full-range coefficients
// scaled by 219/255 and 224/255 (computed in double, rounded to float once).

// OpenCV's 8-bit RGB to grey (cv::cvtColor): fixed point with 15 fractional bits.
SLUICE_HOST_DEVICE inline uint8_t rgb_to_gray_u8(int r, int g, int b) {
  return static_cast<uint8_t>((r * 9798 + g * 19235 + b * 3735 + (1 << 14)) >> 15);
}

// a * r + b * g + c * b + offset, summed left to right.
SLUICE_HOST_DEVICE inline float dot3(float a, float b, float c, float x, float y, float z,
                                     float offset) {
  return add_rn(add_rn(add_rn(mul_rn(a, x), mul_rn(b, y)), mul_rn(c, z)), offset);
}

SLUICE_HOST_DEVICE inline void rgb_to_ycbcr_u8(int r, int g, int b, uint8_t* out) {
  const float fr = static_cast<float>(r), fg = static_cast<float>(g), fb = static_cast<float>(b);
  out[0] = convert_sat<uint8_t>(dot3(static_cast<float>(0.299 * 219 / 255),
                                     static_cast<float>(0.587 * 219 / 255),
                                     static_cast<float>(0.114 * 219 / 255), fr, fg, fb, 16.0f));
  out[1] = convert_sat<uint8_t>(dot3(static_cast<float>(-0.16873589 * 224 / 255),
                                     static_cast<float>(-0.33126411 * 224 / 255),
                                     static_cast<float>(0.5 * 224 / 255), fr, fg, fb, 128.0f));
  out[2] = convert_sat<uint8_t>(
      dot3(static_cast<float>(0.5 * 224 / 255), static_cast<float>(-0.41868759 * 224 / 255),
           static_cast<float>(-0.08131241 * 224 / 255), fr, fg, fb, 128.0f));
}

SLUICE_HOST_DEVICE inline void ycbcr_to_rgb_u8(int y, int cb, int cr, uint8_t* rgb) {
  const float ty = mul_rn(static_cast<float>(255.0 / 219), static_cast<float>(y - 16));
  const float tb = static_cast<float>(cb - 128), tr = static_cast<float>(cr - 128);
  rgb[0] = convert_sat<uint8_t>(add_rn(ty, mul_rn(static_cast<float>(1.402 * 255 / 224), tr)));
  rgb[1] = convert_sat<uint8_t>(
      sub_rn(sub_rn(ty, mul_rn(static_cast<float>(0.34413629 * 255 / 224), tb)),
             mul_rn(static_cast<float>(0.71413629 * 255 / 224), tr)));
  rgb[2] = convert_sat<uint8_t>(add_rn(ty, mul_rn(static_cast<float>(1.772 * 255 / 224), tb)));
}

SLUICE_HOST_DEVICE inline uint8_t gray_to_y_u8(int g) {
  return convert_sat<uint8_t>(
      add_rn(mul_rn(static_cast<float>(g), static_cast<float>(219.0 / 255)), 16.0f));
}

SLUICE_HOST_DEVICE inline uint8_t y_to_gray_u8(int y) {
  return convert_sat<uint8_t>(mul_rn(static_cast<float>(y - 16), static_cast<float>(255.0 / 219)));
}

// One pixel of a colour space conversion; `in` and `out` point at the pixel's first channel.
SLUICE_HOST_DEVICE inline void convert_pixel(ColorOp op, const uint8_t* in, uint8_t* out) {
  switch (op) {
    case ColorOp::kSwapRB: {
      const uint8_t a = in[0], b = in[1], c = in[2];
      out[0] = c, out[1] = b, out[2] = a;
      return;
    }
    case ColorOp::kRgbToGray:
      out[0] = rgb_to_gray_u8(in[0], in[1], in[2]);
      return;
    case ColorOp::kBgrToGray:
      out[0] = rgb_to_gray_u8(in[2], in[1], in[0]);
      return;
    case ColorOp::kGrayToRgb:
      out[0] = out[1] = out[2] = in[0];
      return;
    case ColorOp::kRgbToYCbCr:
      return rgb_to_ycbcr_u8(in[0], in[1], in[2], out);
    case ColorOp::kBgrToYCbCr:
      return rgb_to_ycbcr_u8(in[2], in[1], in[0], out);
    case ColorOp::kYCbCrToRgb:
      return ycbcr_to_rgb_u8(in[0], in[1], in[2], out);
    case ColorOp::kYCbCrToBgr: {
      uint8_t rgb[3];
      ycbcr_to_rgb_u8(in[0], in[1], in[2], rgb);
      out[0] = rgb[2], out[1] = rgb[1], out[2] = rgb[0];
      return;
    }
    case ColorOp::kGrayToYCbCr:
      out[0] = gray_to_y_u8(in[0]);
      out[1] = out[2] = 128;
      return;
    case ColorOp::kYCbCrToGray:
      out[0] = y_to_gray_u8(in[0]);
      return;
    default:
      return;
  }
}

}  // namespace sluice::kernels::color
