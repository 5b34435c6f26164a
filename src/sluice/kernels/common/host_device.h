#pragma once
// Primitives of the functions that the kernels compile for the host (CPU references, emulation
// tests) and for the device from one source, so that both sides run the same operations.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sluice/core/float16.h"  // SLUICE_HOST_DEVICE

// Unrolls a loop in device code (host compilers do not know the pragma).
#if defined(__CUDA_ARCH__)
#define SLUICE_UNROLL _Pragma("unroll")
#else
#define SLUICE_UNROLL
#endif

namespace sluice::kernels {

// The float whose IEEE-754 bits are `bits`.
SLUICE_HOST_DEVICE inline float uint_bits_as_float(uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
#endif
}

// Read-only load (the non-coherent path on the device).
template <typename T>
SLUICE_HOST_DEVICE inline T load_ro(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

// IEEE-754 +, -, * and / of float or double, correctly rounded on both sides: on the device the
// explicit round-to-nearest intrinsics, which nvcc never contracts into an FMA (it would
// contract a * b + c otherwise; the host compiler, in ISO C++ mode on the x86-64 baseline, does
// not).
template <typename T>
SLUICE_HOST_DEVICE inline T add_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __fadd_rn(a, b);
  } else {
    return __dadd_rn(a, b);
  }
#else
  return a + b;
#endif
}
template <typename T>
SLUICE_HOST_DEVICE inline T sub_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __fsub_rn(a, b);
  } else {
    return __dsub_rn(a, b);
  }
#else
  return a - b;
#endif
}
template <typename T>
SLUICE_HOST_DEVICE inline T mul_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __fmul_rn(a, b);
  } else {
    return __dmul_rn(a, b);
  }
#else
  return a * b;
#endif
}
template <typename T>
SLUICE_HOST_DEVICE inline T div_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __fdiv_rn(a, b);
  } else {
    return __ddiv_rn(a, b);
  }
#else
  return a / b;
#endif
}

}  // namespace sluice::kernels
