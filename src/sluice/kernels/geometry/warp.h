#pragma once
// Affine warps of HWC images, for fn.warp_affine and fn.rotate, with DALI's conventions: the
// matrix maps output coordinates to input coordinates (x, y order, pixel centres at +0.5);
// nearest neighbour takes the pixel containing the point, linear interpolation the four pixel
// centres around it; points outside the image take the fill value, or with `clamp` the nearest
// border pixel. The CPU function is the reference of the CUDA kernel (warp_gpu.h): both run
// warp_pixel(), the same IEEE operations in the same order, so their outputs are identical bit
// for bit. DALI's CPU kernel accumulates the source position along a row, so where a position
// falls within rounding of a pixel edge its nearest neighbour may differ from this one.
//
// Element types (input -> output): UINT8, INT16, INT32 or FLOAT to the same type or FLOAT, and
// FLOAT to any of them. Integer outputs round half away from zero and saturate (DALI's CPU).
// Thread safety: stateless; concurrent calls on disjoint outputs are safe.

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "sluice/core/dtype.h"
#include "sluice/core/error.h"
#include "sluice/kernels/common/host_device.h"
#include "sluice/kernels/geometry/coord_transform.h"  // round_sat

namespace sluice::kernels {

struct WarpSample {
  const void* in = nullptr;
  void* out = nullptr;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int channels = 0;
  float m[6] = {};               // output (x, y) -> input (x, y), row-major 2 x 3
  const float* m_ptr = nullptr;  // when set, the matrix is read from here instead of `m`
  bool invert = false;           // the matrix maps input to output: invert it first
  bool linear = true;            // else nearest neighbour
  bool clamp = true;             // else points outside take `fill`
  float fill = 0.0f;
};

// The inverse of the 2 x 3 affine map `m`, in double, rounded to float (a singular map gives
// non-finite values).
SLUICE_HOST_DEVICE inline void invert_affine_2d(const float* m, float* out) {
  const double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5];
  const double det = sub_rn(mul_rn(a, e), mul_rn(b, d));
  const double ia = div_rn(e, det), ib = div_rn(-b, det), id = div_rn(-d, det), ie = div_rn(a, det);
  out[0] = static_cast<float>(ia);
  out[1] = static_cast<float>(ib);
  out[2] = static_cast<float>(-add_rn(mul_rn(ia, c), mul_rn(ib, f)));
  out[3] = static_cast<float>(id);
  out[4] = static_cast<float>(ie);
  out[5] = static_cast<float>(-add_rn(mul_rn(id, c), mul_rn(ie, f)));
}

// The sample's matrix (read, and inverted when asked).
SLUICE_HOST_DEVICE inline void warp_matrix(const WarpSample& s, float* m) {
  const float* src = s.m_ptr ? s.m_ptr : s.m;
  if (s.invert) {
    invert_affine_2d(src, m);
  } else {
    for (int k = 0; k < 6; ++k) m[k] = src[k];
  }
}

// Floor of a coordinate as an index; far-away points stay far away without overflowing (the
// clamped value fits 32 bits, whose conversion is the cheaper one on the GPU).
SLUICE_HOST_DEVICE inline int64_t floor_index(float v) {
  v = fminf(fmaxf(v, -1073741824.0f), 1073741824.0f);
  return static_cast<int32_t>(floorf(v));
}

// An input element as float. UINT8 goes through the exponent bits (2^23 + v, exact): the
// conversion instruction runs at a fraction of the FP32 rate and a linear warp makes 12 a pixel.
template <typename In>
SLUICE_HOST_DEVICE inline float warp_input_float(In v) {
  if constexpr (std::is_same_v<In, uint8_t>) {
    return sub_rn(uint_bits_as_float(0x4B000000u | v), 8388608.0f);
  } else {
    return static_cast<float>(v);
  }
}

// The first channel of input pixel (y, x) of an image with `channels` channels; with `clamp`
// the nearest border pixel for points outside, else nullptr (the fill value) for them.
// Index: the type of coordinates and input offsets (int32_t where the input has fewer than 2^31
// elements: 64-bit compares and products take several instructions on the GPU).
template <typename Index, typename In>
SLUICE_HOST_DEVICE inline const In* warp_tap(const WarpSample& s, const In* in, Index y, Index x,
                                             int channels) {
  const Index h = static_cast<Index>(s.in_h), w = static_cast<Index>(s.in_w);
  if (s.clamp) {
    y = y < 0 ? 0 : (y >= h ? h - 1 : y);
    x = x < 0 ? 0 : (x >= w ? w - 1 : x);
  } else if (y < 0 || y >= h || x < 0 || x >= w) {
    return nullptr;
  }
  return in + (y * w + x) * channels;
}

// The input point (sx, sy) output pixel (y, x) maps to.
template <typename Index>
SLUICE_HOST_DEVICE inline void warp_source(const float* m, Index y, Index x, float& sx, float& sy) {
  const float fx = add_rn(static_cast<float>(x), 0.5f), fy = add_rn(static_cast<float>(y), 0.5f);
  sx = add_rn(add_rn(mul_rn(m[0], fx), mul_rn(m[1], fy)), m[2]);
  sy = add_rn(add_rn(mul_rn(m[3], fx), mul_rn(m[4], fy)), m[5]);
}

// Linear interpolation at (sx, sy): the top-left of the four pixel centres around it and the
// weights.
template <typename Index>
struct WarpLinear {
  Index x0, y0;
  float qx, qy, rx;
  SLUICE_HOST_DEVICE WarpLinear(float sx, float sy) {
    const float px = sub_rn(sx, 0.5f), py = sub_rn(sy, 0.5f);
    x0 = static_cast<Index>(floor_index(px));
    y0 = static_cast<Index>(floor_index(py));
    qx = sub_rn(px, static_cast<float>(x0));
    qy = sub_rn(py, static_cast<float>(y0));
    rx = sub_rn(1.0f, qx);
  }
  // The interpolated value of the taps (y0, x0), (y0, x0 + 1), (y0 + 1, x0), (y0 + 1, x0 + 1).
  SLUICE_HOST_DEVICE float at(float s00, float s01, float s10, float s11) const {
    const float r0 = add_rn(mul_rn(s00, rx), mul_rn(s01, qx));
    const float r1 = add_rn(mul_rn(s10, rx), mul_rn(s11, qx));
    return add_rn(r0, mul_rn(sub_rn(r1, r0), qy));
  }
};

// Output pixel (y, x), all channels; `m` from warp_matrix(). kChannels > 0 fixes the channel
// count at compile time (the CUDA kernel's common cases); 0 reads it from the sample. Index as
// for warp_tap; with int32_t the output must have fewer than 2^31 elements too.
template <typename Out, typename In, int kChannels = 0, typename Index = int64_t>
SLUICE_HOST_DEVICE inline void warp_pixel(const WarpSample& s, const float* m, Index y, Index x) {
  const int channels = kChannels > 0 ? kChannels : s.channels;
  const In* in = static_cast<const In*>(s.in);
  Out* out = static_cast<Out*>(s.out) + (y * static_cast<Index>(s.out_w) + x) * channels;
  float sx, sy;
  warp_source(m, y, x, sx, sy);
  // DALI converts the fill value to the output type, and for interpolation on to the input's.
  const Out fill_out = round_sat<Out>(s.fill);
  if (!s.linear) {
    const In* p = warp_tap<Index>(s, in, static_cast<Index>(floor_index(sy)),
                                  static_cast<Index>(floor_index(sx)), channels);
    for (int c = 0; c < channels; ++c) {
      if (!p) {
        out[c] = fill_out;
      } else if constexpr (std::is_same_v<Out, In>) {
        out[c] = load_ro(p + c);
      } else {
        out[c] = round_sat<Out>(warp_input_float(load_ro(p + c)));
      }
    }
    return;
  }
  const In fill_in = round_sat<In>(static_cast<float>(fill_out));
  const WarpLinear<Index> l(sx, sy);
  // The four pixels around the point, found once for all channels.
  const In* p00 = warp_tap<Index>(s, in, l.y0, l.x0, channels);
  const In* p01 = warp_tap<Index>(s, in, l.y0, l.x0 + 1, channels);
  const In* p10 = warp_tap<Index>(s, in, l.y0 + 1, l.x0, channels);
  const In* p11 = warp_tap<Index>(s, in, l.y0 + 1, l.x0 + 1, channels);
  for (int c = 0; c < channels; ++c) {
    out[c] = round_sat<Out>(l.at(warp_input_float(p00 ? load_ro(p00 + c) : fill_in),
                                 warp_input_float(p01 ? load_ro(p01 + c) : fill_in),
                                 warp_input_float(p10 ? load_ro(p10 + c) : fill_in),
                                 warp_input_float(p11 ? load_ro(p11 + c) : fill_in)));
  }
}

// Calls fn(TypeTag<In>{}, TypeTag<Out>{}) for the supported pairs; throws InvalidArgument
// otherwise.
template <typename Fn>
void warp_type_dispatch(DType in_type, DType out_type, Fn&& fn) {
  auto with_in = [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    if (out_type == DType::kFloat32) return fn(in_tag, TypeTag<float>{});
    if (out_type == in_type) return fn(in_tag, TypeTag<In>{});
    if constexpr (std::is_same_v<In, float>) {
      switch (out_type) {
        case DType::kUInt8:
          return fn(in_tag, TypeTag<uint8_t>{});
        case DType::kInt16:
          return fn(in_tag, TypeTag<int16_t>{});
        case DType::kInt32:
          return fn(in_tag, TypeTag<int32_t>{});
        default:
          break;
      }
    }
    throw InvalidArgument(make_string("Unsupported input/output types for the operator: ",
                                      dtype_name(in_type), " -> ", dtype_name(out_type)));
  };
  switch (in_type) {
    case DType::kUInt8:
      return with_in(TypeTag<uint8_t>{});
    case DType::kInt16:
      return with_in(TypeTag<int16_t>{});
    case DType::kInt32:
      return with_in(TypeTag<int32_t>{});
    case DType::kFloat32:
      return with_in(TypeTag<float>{});
    default:
      throw InvalidArgument(make_string("Unsupported input/output types for the operator: ",
                                        dtype_name(in_type), " -> ", dtype_name(out_type)));
  }
}

// Warps one sample (pointers in host memory).
void warp_cpu(const WarpSample& s, DType in_type, DType out_type);

}  // namespace sluice::kernels
