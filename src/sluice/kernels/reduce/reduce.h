#pragma once
// Reductions over axes (sum, min, max, mean, mean square, root mean square, variance, standard
// deviation): the geometry and the element arithmetic the CPU and CUDA kernels share, so that
// integer results agree bit for bit and floating-point ones up to the order of the sums.
//
// The arithmetic is DALI's: the sum accumulates in the output type (an integer output wraps), the
// mean multiplies that sum by 1/n in float and truncates to an integer output; squares of 32-bit
// integers are taken in 64 bits. Floating-point sums accumulate in double.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "sluice/core/dtype.h"
#include "sluice/core/error.h"
#include "sluice/core/shape.h"
#include "sluice/kernels/common/host_device.h"

namespace sluice::kernels {

enum class ReduceOp : uint8_t { kSum, kMin, kMax, kMean, kMeanSquare, kRms, kVariance, kStdDev };

inline constexpr int kMaxReduceDims = 8;

// One sample: its input with adjacent kept axes and adjacent reduced axes merged, split into
// the kept dimensions (which index the output) and the reduced ones, each with its stride.
struct ReduceGeometry {
  int num_kept = 0;
  int num_reduced = 0;
  int64_t kept_extent[kMaxReduceDims] = {};
  int64_t kept_stride[kMaxReduceDims] = {};
  int64_t reduced_extent[kMaxReduceDims] = {};
  int64_t reduced_stride[kMaxReduceDims] = {};
  int64_t out_volume = 1;      // output elements
  int64_t reduced_volume = 1;  // input elements per output element
};

// `axis_mask`: bit d set for a reduced axis d of `in`. Throws past kMaxReduceDims merged axes.
ReduceGeometry reduce_geometry(const Shape& in, uint64_t axis_mask);

// The input offset of output element `o`'s first input element.
SLUICE_HOST_DEVICE inline int64_t reduce_base_offset(const ReduceGeometry& g, int64_t o) {
  int64_t off = 0;
  for (int d = g.num_kept - 1; d >= 0; --d) {
    off += (o % g.kept_extent[d]) * g.kept_stride[d];
    o /= g.kept_extent[d];
  }
  return off;
}

// The offset, from an output element's base, of its `r`-th reduced input element.
SLUICE_HOST_DEVICE inline int64_t reduce_inner_offset(const ReduceGeometry& g, int64_t r) {
  if (g.num_reduced == 1) return r * g.reduced_stride[0];  // no division (64-bit is slow on GPUs)
  int64_t off = 0;
  for (int d = g.num_reduced - 1; d >= 0; --d) {
    off += (r % g.reduced_extent[d]) * g.reduced_stride[d];
    r /= g.reduced_extent[d];
  }
  return off;
}

// The accumulator of an output type: double for a floating-point output, the output type itself
// otherwise (integer sums wrap, as DALI's do).
template <typename Out>
using ReduceAcc = std::conditional_t<std::is_floating_point_v<Out>, double, Out>;

template <typename Acc>
SLUICE_HOST_DEVICE inline Acc reduce_neutral(ReduceOp op) {
  if (op == ReduceOp::kMin) {
    return std::is_floating_point_v<Acc> ? std::numeric_limits<Acc>::infinity()
                                         : std::numeric_limits<Acc>::max();
  }
  if (op == ReduceOp::kMax) {
    return std::is_floating_point_v<Acc> ? -std::numeric_limits<Acc>::infinity()
                                         : std::numeric_limits<Acc>::lowest();
  }
  return Acc(0);
}

// x * x with DALI's widening: 32-bit integers square in 64 bits, narrower ones in int (a
// uint16 square past INT_MAX wraps, as DALI's does), the rest in their own type.
template <typename In>
SLUICE_HOST_DEVICE inline auto reduce_square(In x) {
  if constexpr (std::is_same_v<In, int32_t>) {
    return static_cast<int64_t>(x) * x;
  } else if constexpr (std::is_same_v<In, uint32_t>) {
    return static_cast<uint64_t>(x) * x;
  } else if constexpr (std::is_integral_v<In> && sizeof(In) < 4) {
    return static_cast<int>(static_cast<unsigned>(x) * static_cast<unsigned>(x));
  } else if constexpr (std::is_integral_v<In>) {
    using U = std::make_unsigned_t<In>;
    return static_cast<In>(static_cast<U>(x) * static_cast<U>(x));
  } else {
    return x * x;
  }
}

// An input element as the accumulator adds it.
template <typename Acc, typename In>
SLUICE_HOST_DEVICE inline Acc reduce_pre(ReduceOp op, In x, float mean) {
  switch (op) {
    case ReduceOp::kMeanSquare:
    case ReduceOp::kRms:
      return static_cast<Acc>(reduce_square(x));
    case ReduceOp::kVariance:
    case ReduceOp::kStdDev: {
      const float d = static_cast<float>(x) - mean;
      return static_cast<Acc>(d * d);
    }
    default:
      return static_cast<Acc>(x);
  }
}

template <typename Acc>
SLUICE_HOST_DEVICE inline Acc reduce_combine(ReduceOp op, Acc a, Acc b) {
  if (op == ReduceOp::kMin) return b < a ? b : a;
  if (op == ReduceOp::kMax) return b > a ? b : a;
  if constexpr (std::is_integral_v<Acc>) {
    using U = std::make_unsigned_t<Acc>;
    return static_cast<Acc>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// The output value of an accumulated `acc` over `n` elements.
template <typename Out, typename Acc>
SLUICE_HOST_DEVICE inline Out reduce_post(ReduceOp op, Acc acc, int64_t n, int ddof) {
  const bool is_root = op == ReduceOp::kRms || op == ReduceOp::kStdDev;
  int64_t divisor = n;
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      return static_cast<Out>(acc);
    case ReduceOp::kVariance:
    case ReduceOp::kStdDev:
      divisor = n - ddof;
      break;
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<Out>) {
    const double v = static_cast<double>(acc) * (1.0 / static_cast<double>(divisor));
    return static_cast<Out>(is_root ? sqrt(v) : v);
  } else {
    // DALI scales the integer sum by a float factor and truncates.
    float v = static_cast<float>(acc) * static_cast<float>(1.0 / static_cast<double>(divisor));
    if (is_root) v = sqrtf(v);
    if (!(v == v)) return Out(0);  // an empty reduction (0 / 0)
    if (v >= static_cast<float>(std::numeric_limits<Out>::max())) {
      return std::numeric_limits<Out>::max();
    }
    if (v <= static_cast<float>(std::numeric_limits<Out>::lowest())) {
      return std::numeric_limits<Out>::lowest();
    }
    return static_cast<Out>(v);
  }
}

// Calls fn(TypeTag<In>{}, TypeTag<Out>{}) for the element types the reductions take: inputs of
// (u)int8 to (u)int64 and float32; outputs of the input's type, (u)int64 of its signedness, or
// float32. Throws InvalidArgument for any other pair.
template <typename Fn>
void reduce_type_dispatch(DType in, DType out, Fn&& fn) {
  auto with_out = [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    using Wide = std::conditional_t<std::is_signed_v<In>, int64_t, uint64_t>;
    if (out == dtype_of<In>) {
      fn(in_tag, TypeTag<In>{});
    } else if (std::is_integral_v<In> && out == dtype_of<Wide>) {
      fn(in_tag, TypeTag<Wide>{});
    } else if (out == DType::kFloat32) {
      fn(in_tag, TypeTag<float>{});
    } else {
      throw InvalidArgument(
          make_string("Unsupported types: ", dtype_name(in), ", ", dtype_name(out)));
    }
  };
  switch (in) {
    case DType::kUInt8:
      return with_out(TypeTag<uint8_t>{});
    case DType::kInt8:
      return with_out(TypeTag<int8_t>{});
    case DType::kUInt16:
      return with_out(TypeTag<uint16_t>{});
    case DType::kInt16:
      return with_out(TypeTag<int16_t>{});
    case DType::kUInt32:
      return with_out(TypeTag<uint32_t>{});
    case DType::kInt32:
      return with_out(TypeTag<int32_t>{});
    case DType::kUInt64:
      return with_out(TypeTag<uint64_t>{});
    case DType::kInt64:
      return with_out(TypeTag<int64_t>{});
    case DType::kFloat32:
      return with_out(TypeTag<float>{});
    default:
      throw InvalidArgument(make_string("Unsupported input type: ", dtype_name(in)));
  }
}

}  // namespace sluice::kernels
