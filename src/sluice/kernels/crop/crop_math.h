#pragma once
// Element arithmetic shared by the CPU references and the CUDA kernels of this folder. Every
// function has one host and one device branch that compute the same IEEE operations in the same
// order, so GPU results equal CPU results bit for bit. Included by .cc and .cu files; compiles
// with g++ alone.

#include <cmath>
#include <cstdint>

#include "sluice/core/float16.h"

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace sluice::crop_detail {

// Note [Normalization order]
// crop_mirror_normalize computes out = (x - mean) / std * scale + shift as
//   fma(x - mean, k, shift) with k = float(double(scale) / double(std))
// i.e. one rounded subtraction and one fused multiply-add. The fused form is used on both sides
// on purpose: a separate multiply and add could be contracted into an FMA by one compiler and
// not by the other (nvcc contracts by default, g++ does when FMA instructions are enabled),
// which would make integer outputs differ at rounding ties. std::fma is correctly rounded, as is
// the device's fmaf, so both sides agree exactly.
inline double cmn_multiplier(float scale, float stddev) {
  return static_cast<double>(scale) / static_cast<double>(stddev);
}

SLUICE_HOST_DEVICE inline float cmn_normalize(float x, float mean, float k, float shift) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(__fsub_rn(x, mean), k, shift);
#else
  return std::fma(x - mean, k, shift);
#endif
}

// Converts a float to the element type the kernels store: floats unchanged, float16 rounded to
// nearest even, integers rounded to nearest (halves to even, as __float2int_rn) after
// saturating to the type's range; NaN saturates to the lowest value (fmax ignores NaN).
template <typename Out>
struct FloatTo;

template <>
struct FloatTo<float> {
  SLUICE_HOST_DEVICE static float convert(float v) { return v; }
};

template <>
struct FloatTo<float16> {
  SLUICE_HOST_DEVICE static float16 convert(float v) {
    float16 h;
#if defined(__CUDA_ARCH__)
    h.bits = __half_as_ushort(__float2half_rn(v));
#else
    h.bits = float_to_half_bits(v);
#endif
    return h;
  }
};

template <typename Int, int kLo, int kHi>
struct FloatToSmallInt {
  SLUICE_HOST_DEVICE static Int convert(float v) {
#if defined(__CUDA_ARCH__)
    v = fminf(fmaxf(v, static_cast<float>(kLo)), static_cast<float>(kHi));
    return static_cast<Int>(__float2int_rn(v));
#else
    v = std::fmin(std::fmax(v, static_cast<float>(kLo)), static_cast<float>(kHi));
    return static_cast<Int>(static_cast<int>(std::nearbyint(v)));
#endif
  }
};

template <>
struct FloatTo<uint8_t> : FloatToSmallInt<uint8_t, 0, 255> {};
template <>
struct FloatTo<int8_t> : FloatToSmallInt<int8_t, -128, 127> {};
template <>
struct FloatTo<uint16_t> : FloatToSmallInt<uint16_t, 0, 65535> {};
template <>
struct FloatTo<int16_t> : FloatToSmallInt<int16_t, -32768, 32767> {};

template <typename Out>
SLUICE_HOST_DEVICE inline Out float_to(float v) {
  return FloatTo<Out>::convert(v);
}

// Input element to float (exact for every integer input type used here).
template <typename In>
SLUICE_HOST_DEVICE inline float to_float(In v) {
  return static_cast<float>(v);
}
template <>
SLUICE_HOST_DEVICE inline float to_float<float16>(float16 v) {
  return half_bits_to_float(v.bits);
}

// DALI's pad_output: the channel count rounded up to a power of two (3 -> 4).
SLUICE_HOST_DEVICE inline int next_pow2(int c) {
  int p = 1;
  while (p < c) p *= 2;
  return p;
}

}  // namespace sluice::crop_detail
