#pragma once
// DALI's conversions of float results to the output type (ConvertSat), for the kernels that
// match DALI's operators bit for bit (colour, convolution), on the host and the device alike.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "sluice/core/float16.h"

namespace sluice::kernels {

template <typename T>
SLUICE_HOST_DEVICE inline float to_float(T v) {
  return static_cast<float>(v);
}

// float to float16 as DALI's CPU operators convert: to nearest, ties away from zero (the
// round-to-nearest-even conversion, moved one step outwards on an exact tie).
SLUICE_HOST_DEVICE inline float16 to_half_ties_away(float v) {
  const float16 h(v);
  const float a = v < 0 ? -v : v;
  const float hf = static_cast<float>(h);
  const float lo = hf < 0 ? -hf : hf;
  if (!(lo < a)) return h;  // exact, already rounded outwards, or NaN
  float16 up;
  up.bits = static_cast<uint16_t>(h.bits + 1);  // sign and magnitude: the next half outwards
  const float uf = static_cast<float>(up);
  const float hi = uf < 0 ? -uf : uf;
  return static_cast<double>(a) - lo == static_cast<double>(hi) - a ? up : h;
}

// DALI's ConvertSat from float: integers round half away from zero and saturate (NaN gives 0).
template <typename Out>
SLUICE_HOST_DEVICE inline Out convert_sat(float v) {
  if constexpr (std::is_same_v<Out, float> || std::is_same_v<Out, double>) {
    return v;
  } else if constexpr (std::is_same_v<Out, float16>) {
    return to_half_ties_away(v);
  } else {
    if (!(v == v)) return Out{0};
#if defined(__CUDA_ARCH__)
    const float r = roundf(v);
#else
    const float r = std::round(v);
#endif
    constexpr float lo = static_cast<float>(std::numeric_limits<Out>::min());
    constexpr float hi = static_cast<float>(std::numeric_limits<Out>::max());
    if (r <= lo) return std::numeric_limits<Out>::min();
    if (r >= hi) return std::numeric_limits<Out>::max();
    return static_cast<Out>(r);
  }
}

}  // namespace sluice::kernels
