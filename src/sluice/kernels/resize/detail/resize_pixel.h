#pragma once
// Per-pixel arithmetic shared by the CPU reference and the CUDA kernels (see Note
// [Bit-identical coefficients] in resample_math.h): accumulation, output conversion and the
// normalisation of the fused path, each written once with explicitly rounded float operations so
// that both sides produce the same bits.

#include <cstdint>

#include "sluice/kernels/common/host_device.h"
#include "sluice/kernels/crop/crop_math.h"
#include "sluice/kernels/resize/resample_filter.h"

#include <cmath>

namespace sluice::kernels::detail {

// Accumulators. Fixed point (uint8 -> uint8, Pillow): starts at one half so that the final
// arithmetic shift rounds half up. Float: plain sum, in tap order, without FMA.
inline constexpr int32_t kFixedHalf = 1 << (kCoeffFractionBits - 1);

SLUICE_HOST_DEVICE inline int32_t accumulate(int32_t acc, int32_t v, int32_t k) {
  return acc + v * k;
}
SLUICE_HOST_DEVICE inline float accumulate(float acc, float v, float k) {
  return add_rn(acc, mul_rn(v, k));
}

template <typename Acc>
SLUICE_HOST_DEVICE inline Acc accumulator_init();
template <>
SLUICE_HOST_DEVICE inline int32_t accumulator_init<int32_t>() {
  return kFixedHalf;
}
template <>
SLUICE_HOST_DEVICE inline float accumulator_init<float>() {
  return 0.0f;
}

// Pillow's clip8: floor(acc / 2^22) saturated to [0, 255].
SLUICE_HOST_DEVICE inline uint8_t fixed_to_u8(int32_t acc) {
  const int32_t v = acc >> kCoeffFractionBits;
  return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

// Float to uint8: saturate, then round to nearest, ties to even (NaN -> 0).
SLUICE_HOST_DEVICE inline uint8_t float_to_u8(float v) {
  if (!(v > 0.0f)) return 0;
  if (v >= 255.0f) return 255;
#if defined(__CUDA_ARCH__)
  return static_cast<uint8_t>(__float2int_rn(v));
#else
  return static_cast<uint8_t>(std::nearbyint(v));
#endif
}

// Intermediate (between the passes) and final conversions of an accumulator.
SLUICE_HOST_DEVICE inline uint8_t to_intermediate(int32_t acc, uint8_t*) {
  return fixed_to_u8(acc);
}
SLUICE_HOST_DEVICE inline float to_intermediate(float acc, float*) {
  return acc;
}

// The fused normalisation is crop_mirror_normalize's arithmetic (crop_detail::cmn_normalize,
// Note [Normalization order] in kernels/crop/crop_math.h), so that the fused path equals resize
// followed by crop_mirror_normalize bit for bit; the multiplier is computed on the host.
inline float normalize_multiplier(float scale, float stddev) {
  return static_cast<float>(crop_detail::cmn_multiplier(scale, stddev));
}

}  // namespace sluice::kernels::detail
