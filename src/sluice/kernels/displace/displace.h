#pragma once
// Displacement filters of HWC images (uint8 or float): each output pixel samples the input at a
// moved position, with nearest or linear interpolation and a fill value outside. water moves by
// sine waves, sphere bulges from the centre, jitter moves by random whole pixels. Positions and
// samples follow DALI 2.4's CPU operators (its float operations in its order, its rounding);
// one host-device function computes a pixel for the CPU and the CUDA kernels.
//
// The CPU and the GPU agree bit for bit except where water's sinf / cosf differ (the CUDA and C
// library functions may differ in the last bit; the GPU tests state the tolerance).

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "sluice/core/rng.h"
#include "sluice/kernels/common/convert_sat.h"
#include "sluice/kernels/common/host_device.h"

namespace sluice::kernels {

enum class DisplaceKind : uint8_t { kWater, kSphere, kJitter };

struct DisplaceSample {
  void* out;
  const void* in;
  int64_t height, width, channels;
  bool apply;  // false: the input is copied (DALI's `mask` = 0)
  float fill;  // already converted to the element type, as DALI converts it
  float ampl_x, freq_x, phase_x, ampl_y, freq_y, phase_y;  // water
  int n_degree;                                            // jitter: moves in [-n/2, n - 1 - n/2]
  PhiloxKey key;                                           // jitter: the sample's random stream
};

struct DisplaceParams {
  DisplaceKind kind;
  bool linear;    // else nearest
  bool is_float;  // else uint8
};

// DALI's floor_int; positions beyond the int range (or NaN) give a coordinate outside any image.
SLUICE_HOST_DEVICE inline int64_t displace_floor(float v) {
  const float f = floorf(v);
  return f >= -1e9f && f <= 1e9f ? static_cast<int64_t>(f) : int64_t{-1} << 40;
}

// Where output pixel (y, x) samples the input: (sx, sy), in DALI's pixel coordinates.
SLUICE_HOST_DEVICE inline void water_position(const DisplaceSample& s, int64_t y, int64_t x,
                                              float& sx, float& sy) {
  const float fy = static_cast<float>(y), fx = static_cast<float>(x);
  sx = add_rn(fx, mul_rn(s.ampl_x, sinf(add_rn(mul_rn(s.freq_x, fy), s.phase_x))));
  sy = add_rn(fy, mul_rn(s.ampl_y, cosf(add_rn(mul_rn(s.freq_y, fx), s.phase_y))));
}

SLUICE_HOST_DEVICE inline void sphere_position(const DisplaceSample& s, int64_t y, int64_t x,
                                               float& sx, float& sy) {
  const float mid_x = mul_rn(static_cast<float>(s.width), 0.5f);
  const float mid_y = mul_rn(static_cast<float>(s.height), 0.5f);
  const int d = static_cast<int>(mid_x > mid_y ? mid_x : mid_y);
  const float ty = sub_rn(add_rn(static_cast<float>(y), 0.5f), mid_y);
  const float tx = sub_rn(add_rn(static_cast<float>(x), 0.5f), mid_x);
  const float rad = div_rn(sqrtf(add_rn(mul_rn(tx, tx), mul_rn(ty, ty))), static_cast<float>(d));
  sx = add_rn(mid_x, mul_rn(rad, tx));
  sy = add_rn(mid_y, mul_rn(rad, ty));
}

// jitter: whole-pixel moves from the sample's stream, clamped to [0, width] x [0, height] (the
// far edge is outside, hence filled, as in DALI).
SLUICE_HOST_DEVICE inline void jitter_position(const DisplaceSample& s, int64_t y, int64_t x,
                                               int64_t& ix, int64_t& iy) {
  const uint64_t pixel = static_cast<uint64_t>(y * s.width + x);
  const uint32_t counter[4] = {static_cast<uint32_t>(pixel), static_cast<uint32_t>(pixel >> 32),
                               0x6A177E5u, 0};
  uint32_t r[4];
  philox4x32(s.key, counter, r);
  const int64_t n = s.n_degree, half = s.n_degree / 2;
  ix = static_cast<int64_t>(r[0] % n) - half + x;
  iy = static_cast<int64_t>(r[1] % n) - half + y;
  ix = ix < 0 ? 0 : ix > s.width ? s.width : ix;
  iy = iy < 0 ? 0 : iy > s.height ? s.height : iy;
}

template <typename T>
SLUICE_HOST_DEVICE inline T displace_at(const DisplaceSample& s, const T* in, int64_t x, int64_t y,
                                        int64_t c) {
  if (x < 0 || x >= s.width || y < 0 || y >= s.height) return static_cast<T>(s.fill);
  return in[(y * s.width + x) * s.channels + c];
}

// Writes the `channels` values of output pixel (y, x).
template <typename T>
SLUICE_HOST_DEVICE inline void displace_pixel(const DisplaceSample& s, DisplaceParams p, int64_t y,
                                              int64_t x) {
  const T* in = static_cast<const T*>(s.in);
  T* out = static_cast<T*>(s.out) + (y * s.width + x) * s.channels;
  if (!s.apply) {
    for (int64_t c = 0; c < s.channels; ++c) out[c] = in[(y * s.width + x) * s.channels + c];
    return;
  }
  float sx = 0, sy = 0;
  if (p.kind == DisplaceKind::kJitter) {
    int64_t ix, iy;
    jitter_position(s, y, x, ix, iy);
    for (int64_t c = 0; c < s.channels; ++c) out[c] = displace_at(s, in, ix, iy, c);
    return;
  }
  if (p.kind == DisplaceKind::kWater) {
    water_position(s, y, x, sx, sy);
  } else {
    sphere_position(s, y, x, sx, sy);
  }
  if (!p.linear) {
    const int64_t ix = displace_floor(sx), iy = displace_floor(sy);
    for (int64_t c = 0; c < s.channels; ++c) out[c] = displace_at(s, in, ix, iy, c);
    return;
  }
  sx = sub_rn(sx, 0.5f);
  sy = sub_rn(sy, 0.5f);
  const int64_t x0 = displace_floor(sx), y0 = displace_floor(sy);
  const float qx = sub_rn(sx, static_cast<float>(x0));
  const float px = sub_rn(1.0f, qx);
  const float qy = sub_rn(sy, static_cast<float>(y0));
  for (int64_t c = 0; c < s.channels; ++c) {
    const float s00 = static_cast<float>(displace_at(s, in, x0, y0, c));
    const float s01 = static_cast<float>(displace_at(s, in, x0 + 1, y0, c));
    const float s10 = static_cast<float>(displace_at(s, in, x0, y0 + 1, c));
    const float s11 = static_cast<float>(displace_at(s, in, x0 + 1, y0 + 1, c));
    const float s0 = add_rn(mul_rn(s00, px), mul_rn(s01, qx));
    const float s1 = add_rn(mul_rn(s10, px), mul_rn(s11, qx));
    out[c] = convert_sat<T>(add_rn(s0, mul_rn(sub_rn(s1, s0), qy)));
  }
}

// One sample on the calling thread.
void displace_cpu(const DisplaceSample& s, DisplaceParams p);

// CUDA: one launch for all samples (descriptors in device memory); `max_pixels` the largest
// height * width.
void displace_gpu(const DisplaceSample* samples, int num_samples, DisplaceParams p,
                  int64_t max_pixels, void* stream);

}  // namespace sluice::kernels
