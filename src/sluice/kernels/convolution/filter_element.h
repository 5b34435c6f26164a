#pragma once
// One output element of a FilterSample, for the CPU code and the CUDA kernel alike.

#include "sluice/core/error.h"
#include "sluice/kernels/common/dali_convert.h"
#include "sluice/kernels/common/host_device.h"
#include "sluice/kernels/convolution/convolution_element.h"
#include "sluice/kernels/convolution/filter.h"

namespace sluice::kernels::conv {

// OpenCV's saturate_cast from float: integers round to nearest, ties to even, and saturate.
template <typename Out>
SLUICE_HOST_DEVICE inline Out convert_rne(float v) {
  if constexpr (std::is_same_v<Out, float>) {
    return v;
  } else {
#if defined(__CUDA_ARCH__)
    const float r = rintf(v);
#else
    const float r = std::nearbyint(v);
#endif
    constexpr float lo = static_cast<float>(std::numeric_limits<Out>::min());
    constexpr float hi = static_cast<float>(std::numeric_limits<Out>::max());
    if (!(r == r)) return Out{0};
    if (r <= lo) return std::numeric_limits<Out>::min();
    if (r >= hi) return std::numeric_limits<Out>::max();
    return static_cast<Out>(r);
  }
}

SLUICE_HOST_DEVICE inline float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// OpenCV's FLOAT filter sums with fused multiply-adds in 8-lane vectors, the rest of each row
// (fewer than 8 values) with separate products: whether output element e is in the vectors.
SLUICE_HOST_DEVICE inline bool in_vector_lanes(const FilterSample& s, int64_t e) {
  const int64_t row = s.out_extent[s.axes - 1] * s.channels;
  return e % row < row / 8 * 8;
}

// Output element e (flat index over outer, out_extent[0..axes), channels).
template <typename Out, typename In>
SLUICE_HOST_DEVICE inline void filter_element(const FilterSample& s, int64_t e) {
  int64_t pos[3] = {0, 0, 0};
  const int64_t c = e % s.channels;
  int64_t rest = e / s.channels;
  for (int a = s.axes - 1; a >= 0; --a) {
    pos[a] = rest % s.out_extent[a];
    rest /= s.out_extent[a];
  }
  const int64_t o = rest;
  const In* in = static_cast<const In*>(s.in);
  const float fill = s.fill ? static_cast<float>(*static_cast<const In*>(s.fill)) : 0.0f;
  int64_t plane = 1;
  for (int a = 0; a < s.axes; ++a) plane *= s.in_extent[a];
  const In* base = in + o * plane * s.channels + c;
  float acc = 0;
  const int32_t kd = s.axes == 3 ? s.k_extent[0] : 1;
  const int32_t kh = s.k_extent[s.axes - 2], kw = s.k_extent[s.axes - 1];
  int tap = 0;
  const bool fused = std::is_same_v<In, float> && in_vector_lanes(s, e);
  for (int32_t d = 0; d < kd; ++d) {
    int64_t zi = 0;
    if (s.axes == 3) zi = border_index(pos[0] - s.anchor[0] + d, s.in_extent[0], s.border);
    for (int32_t i = 0; i < kh; ++i) {
      const int ay = s.axes - 2;
      const int64_t yi = border_index(pos[ay] - s.anchor[ay] + i, s.in_extent[ay], s.border);
      for (int32_t j = 0; j < kw; ++j, ++tap) {
        const float w = s.kernel[tap];
        if (w == 0) continue;  // OpenCV drops zero taps
        const int ax = s.axes - 1;
        const int64_t xi = border_index(pos[ax] - s.anchor[ax] + j, s.in_extent[ax], s.border);
        float v = fill;
        if (zi >= 0 && yi >= 0 && xi >= 0) {
          v = static_cast<float>(
              base[((zi * s.in_extent[ay] + yi) * s.in_extent[ax] + xi) * s.channels]);
        }
        acc = fused ? fma_rn(w, v, acc) : add_rn(acc, mul_rn(w, v));
      }
    }
  }
  static_cast<Out*>(s.out)[e] = convert_rne<Out>(acc);
}

// The (input, output) types of filter: UINT8, UINT16, INT16 or FLOAT in; the same or FLOAT out.
template <typename Fn>
void filter_dispatch(DType in, DType out, Fn&& fn) {
  auto with_out = [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    if (out == in) return fn(in_tag, in_tag);
    SLUICE_CHECK(out == DType::kFloat32, InvalidArgument, "filter output must be ", dtype_name(in),
                 " or FLOAT, got ", dtype_name(out));
    return fn(TypeTag<In>{}, TypeTag<float>{});
  };
  switch (in) {
    case DType::kUInt8:
      return with_out(TypeTag<uint8_t>{});
    case DType::kUInt16:
      return with_out(TypeTag<uint16_t>{});
    case DType::kInt16:
      return with_out(TypeTag<int16_t>{});
    case DType::kFloat32:
      return with_out(TypeTag<float>{});
    default:
      throw InvalidArgument(make_string("filter does not support input type ", dtype_name(in)));
  }
}

}  // namespace sluice::kernels::conv
