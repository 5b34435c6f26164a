#pragma once
// One output element of an AxisPass, for the CPU code and the CUDA kernels alike.

#include "sluice/kernels/common/dali_convert.h"
#include "sluice/kernels/common/host_device.h"
#include "sluice/kernels/convolution/convolution.h"

namespace sluice::kernels::conv {

SLUICE_HOST_DEVICE inline int64_t border_index(int64_t x, int64_t n, Border b) {
  if (x >= 0 && x < n) return x;
  switch (b) {
    case Border::kReflect101: {
      if (n == 1) return 0;
      const int64_t period = 2 * (n - 1);
      x %= period;
      if (x < 0) x += period;
      return x < n ? x : period - x;
    }
    case Border::kReflect1001: {
      const int64_t period = 2 * n;
      x %= period;
      if (x < 0) x += period;
      return x < n ? x : period - 1 - x;
    }
    case Border::kWrap:
      x %= n;
      return x < 0 ? x + n : x;
    case Border::kClamp:
      return x < 0 ? 0 : n - 1;
    default:
      return -1;  // constant: the fill value
  }
}

// The product DALI adds to its float sum: float for integer and float inputs, double for double.
template <typename T>
SLUICE_HOST_DEVICE inline auto tap(T v, float w) {
  if constexpr (std::is_same_v<T, double>) {
    return v * static_cast<double>(w);
  } else {
    return mul_rn(static_cast<float>(v), w);
  }
}

template <typename Out, typename In>
SLUICE_HOST_DEVICE inline void convolve_element(const AxisPass& p, int64_t o, int64_t x,
                                                int64_t i) {
  const In* in = static_cast<const In*>(p.in) + o * p.extent * p.inner + i;
  float acc = 0;
  auto add_tap = [&](In v, float w) {
    if constexpr (std::is_same_v<In, double>) {
      acc = static_cast<float>(acc + tap(v, w));
    } else {
      acc = add_rn(acc, tap(v, w));
    }
  };
  const int64_t first = x - p.anchor;
  if (first >= 0 && first + p.size <= p.extent) {
    // Away from the edges every tap is inside: no border rule, a pointer steps along the axis.
    const In* q = in + first * p.inner;
    for (int k = 0; k < p.size; ++k, q += p.inner) add_tap(*q, p.window[k]);
  } else {
    for (int k = 0; k < p.size; ++k) {
      const int64_t xi = border_index(first + k, p.extent, p.border);
      const float w = p.window[k];
      if (xi < 0) {
        acc = add_rn(acc, mul_rn(p.fill, w));
      } else {
        add_tap(in[xi * p.inner], w);
      }
    }
  }
  const int64_t at = (o * p.extent + x) * p.inner + i;
  float v = mul_rn(acc, p.scale);
  if (p.add) v = add_rn(v, p.add[at]);
  static_cast<Out*>(p.out)[at] = convert_sat<Out>(v);
}

}  // namespace sluice::kernels::conv
