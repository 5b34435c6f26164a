#include "sluice/kernels/color/color_matrix.h"

#include <array>
#include <cmath>
#include <utility>

namespace sluice::kernels::color {
namespace {

using Mat3 = std::array<float, 9>;

constexpr Mat3 kRgbToYiq = {0.299f,  0.587f, 0.114f,  0.596f, -0.274f,
                            -0.321f, 0.211f, -0.523f, 0.311f};

// The inverse of kRgbToYiq as DALI computes it: Gauss-Jordan elimination in float with partial
// pivoting and fused multiply-adds (the textbook YIQ->RGB matrix is not the exact inverse).
Mat3 yiq_to_rgb() {
  Mat3 a = kRgbToYiq;
  Mat3 o = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int v = 0; v < 3; ++v) {
    int pivot = v;
    for (int i = v + 1; i < 3; ++i) {
      if (std::abs(a[3 * i + v]) > std::abs(a[3 * pivot + v])) pivot = i;
    }
    if (pivot != v) {
      for (int j = 0; j < 3; ++j) {
        std::swap(a[3 * v + j], a[3 * pivot + j]);
        std::swap(o[3 * v + j], o[3 * pivot + j]);
      }
    }
    const float x = 1.0f / a[3 * v + v];
    a[3 * v + v] = 1;
    for (int j = v + 1; j < 3; ++j) a[3 * v + j] *= x;
    for (int j = 0; j < 3; ++j) o[3 * v + j] *= x;
    for (int i = 0; i < 3; ++i) {
      if (i == v) continue;
      const float c = -a[3 * i + v];
      a[3 * i + v] = 0;
      for (int j = v + 1; j < 3; ++j) a[3 * i + j] = std::fma(c, a[3 * v + j], a[3 * i + j]);
      for (int j = 0; j < 3; ++j) o[3 * i + j] = std::fma(c, o[3 * v + j], o[3 * i + j]);
    }
  }
  return o;
}

Mat3 mul(const Mat3& a, const Mat3& b) {
  Mat3 r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      float s = a[3 * i] * b[j];
      s += a[3 * i + 1] * b[3 + j];
      s += a[3 * i + 2] * b[6 + j];
      r[3 * i + j] = s;
    }
  }
  return r;
}

Mat3 diag(float a, float b, float c) {
  return {a, 0, 0, 0, b, 0, 0, 0, c};
}

Mat3 hue_rotation(float degrees) {
  // The angle is rounded to float and its cosine and sine computed in float, as in DALI.
  const auto rad = static_cast<float>(degrees * M_PI / 180);
  const float c = std::cos(rad), s = std::sin(rad);
  return {1, 0, 0, 0, c, s, 0, -s, c};
}

void store(ColorSample& s, const Mat3& m, float offset) {
  for (int i = 0; i < 9; ++i) s.m[i] = m[i];
  for (float& o : s.offset) o = offset;
}

}  // namespace

void set_brightness_contrast(ColorSample& s, float brightness, float shift, float contrast,
                             float center, float out_range) {
  s.m[0] = brightness * contrast;
  s.offset[0] = shift * out_range + brightness * (center - contrast * center);
}

void set_hsv(ColorSample& s, float hue_degrees, float saturation, float value) {
  static const Mat3 yiq_rgb = yiq_to_rgb();
  Mat3 m = mul(yiq_rgb, hue_rotation(hue_degrees));
  m = mul(m, diag(1, saturation, saturation));
  m = mul(m, diag(value, value, value));
  store(s, mul(m, kRgbToYiq), 0.0f);
}

void set_color_twist(ColorSample& s, float hue_degrees, float saturation, float brightness,
                     float contrast, float half_range) {
  static const Mat3 yiq_rgb = yiq_to_rgb();
  Mat3 m = mul(diag(brightness, brightness, brightness), diag(contrast, contrast, contrast));
  m = mul(m, yiq_rgb);
  m = mul(m, hue_rotation(hue_degrees));
  m = mul(m, diag(1, saturation, saturation));
  store(s, mul(m, kRgbToYiq), (half_range - half_range * contrast) * brightness);
}

}  // namespace sluice::kernels::color
