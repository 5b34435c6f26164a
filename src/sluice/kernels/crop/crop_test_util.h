#pragma once
// Test helpers of kernels/crop (tests only): random images and independently written reference
// conversions. Nothing here calls the code under test.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "sluice/core/float16.h"

namespace sluice::crop_test {

// Byte offsets of samples laid out in one batch buffer.
inline size_t align_up(size_t v, size_t a) {
  return (v + a - 1) / a * a;
}

// Random non-zero values spanning the type's range (floats: [-300, 300] without zero).
template <typename T>
std::vector<T> random_values(size_t n, std::mt19937& gen) {
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, float>) {
    std::uniform_real_distribution<float> d(-300.0f, 300.0f);
    for (auto& x : v) {
      do x = d(gen);
      while (x == 0.0f);
    }
  } else if constexpr (std::is_same_v<T, float16>) {
    std::uniform_real_distribution<float> d(-300.0f, 300.0f);
    for (auto& x : v) {
      do x = float16(d(gen));
      while ((x.bits & 0x7fff) == 0);
    }
  } else {
    using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    std::uniform_int_distribution<Wide> d(std::numeric_limits<T>::min(),
                                          std::numeric_limits<T>::max());
    for (auto& x : v) {
      do x = static_cast<T>(d(gen));
      while (x == 0);
    }
  }
  return v;
}

// Round half to even without the floating point environment.
inline double ref_round_half_even(double v) {
  double f = std::floor(v);
  double r = v - f;
  if (r != 0.5) return r < 0.5 ? f : f + 1;
  return std::fmod(f, 2.0) == 0 ? f : f + 1;
}

// float16 bits of v rounded to nearest even, by the compiler's _Float16 where available.
inline uint16_t ref_half_bits(float v) {
#if defined(__FLT16_MAX__)
  _Float16 h = static_cast<_Float16>(v);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
#else
  return float_to_half_bits(v);  // fallback: the library's conversion
#endif
}

// The conversion the kernels document: saturate, round half to even; NaN -> lowest.
template <typename T>
T ref_convert(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else if constexpr (std::is_same_v<T, float16>) {
    float16 h;
    h.bits = ref_half_bits(v);
    return h;
  } else {
    const double lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    if (std::isnan(v)) return static_cast<T>(lo);
    double d = v < lo ? lo : (v > hi ? hi : v);
    return static_cast<T>(ref_round_half_even(d));
  }
}

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
double as_double(T v) {
  if constexpr (std::is_same_v<T, float16>) {
    return half_bits_to_float(v.bits);
  } else {
    return static_cast<double>(v);
  }
}

}  // namespace sluice::crop_test
