// The CPU arithmetic kernel: walks a sample's (merged) output dimensions, converts each tile of
// the operands to the compute type where they are not in it already, and applies the operation
// with the loops of arithmetic_cpu_tile.h.

#include <algorithm>
#include <cstring>

#include "sluice/kernels/elementwise/arithmetic_cpu_tile.h"
#include "sluice/kernels/elementwise/elementwise_cpu.h"

namespace sluice::kernels {
namespace arith {
// Instantiated in arithmetic_cpu_int.cc and arithmetic_cpu_float.cc.
#define SLUICE_ARITH_EXTERN(C) \
  extern template void apply_tile<C>(ArithOp, void*, const TileOperand<C>*, int);
SLUICE_ARITH_EXTERN(bool)
SLUICE_ARITH_EXTERN(uint8_t)
SLUICE_ARITH_EXTERN(int8_t)
SLUICE_ARITH_EXTERN(uint16_t)
SLUICE_ARITH_EXTERN(int16_t)
SLUICE_ARITH_EXTERN(uint32_t)
SLUICE_ARITH_EXTERN(int32_t)
SLUICE_ARITH_EXTERN(int64_t)
SLUICE_ARITH_EXTERN(uint64_t)
SLUICE_ARITH_EXTERN(Int65)
SLUICE_ARITH_EXTERN(float)
SLUICE_ARITH_EXTERN(double)
#undef SLUICE_ARITH_EXTERN
}  // namespace arith

namespace {

using arith::TileOperand;

constexpr int kTile = 1024;  // elements: the converted operands of a tile stay in L1

template <typename C, typename T>
C to_compute(T v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return static_cast<C>(static_cast<float>(v));
  } else {
    return static_cast<C>(v);
  }
}

// dst[i] = src[i] converted to C, for n values of type t; through `rounding` (a 16-bit float
// type, C being float) when it is not C itself, as DALI casts operands to a 16-bit result type.
template <typename C>
void convert_to(C* dst, const void* src, DType t, int n, DType rounding) {
  dtype_dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = static_cast<const T*>(src);
    for (int i = 0; i < n; ++i) dst[i] = to_compute<C>(s[i]);
  });
  if constexpr (std::is_same_v<C, float>) {
    if (rounding == DType::kFloat16) {
      for (int i = 0; i < n; ++i) dst[i] = static_cast<float>(float16(dst[i]));
    } else if (rounding == DType::kBFloat16) {
      for (int i = 0; i < n; ++i) dst[i] = static_cast<float>(bfloat16(dst[i]));
    }
  }
}

// n values of C stored as type t (a narrower float than C).
template <typename C>
void store_from(void* dst, DType t, const C* v, int n) {
  dtype_dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* d = static_cast<T*>(dst);
    for (int i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
        d[i] = T(static_cast<float>(v[i]));
      } else {
        d[i] = static_cast<T>(v[i]);
      }
    }
  });
}

// Whether values of type t are C's values as stored (never for Int65, which has no DType).
template <typename C>
bool is_stored_as(DType t) {
  if constexpr (std::is_same_v<C, arith::Int65>) {
    return false;
  } else {
    return t == dtype_of<C>;
  }
}

template <typename C>
void run_sample(const ArithParams& p, const ArithSampleDesc& s) {
  const int inner_d = s.ndim - 1;
  const int64_t inner = s.shape[inner_d];
  int64_t outer = 1;
  for (int d = 0; d < inner_d; ++d) outer *= s.shape[d];
  if (inner == 0 || outer == 0) return;
  const DType out_t = p.types.result;
  const bool direct_out = is_comparison(p.op) || is_stored_as<C>(out_t);
  const bool converts = p.types.operand_rounding != p.types.compute;
  const bool int_div = (p.op == ArithOp::kDiv || p.op == ArithOp::kMod) && arith::kIsInt<C>;
  const size_t out_size = dtype_size(out_t);
  C buf[kMaxArity][kTile];
  C obuf[kTile];
  int64_t idx[kMaxArithDims] = {};
  for (int64_t o = 0; o < outer; ++o) {
    int64_t off[kMaxArity] = {};
    for (int k = 0; k < p.arity; ++k) {
      for (int d = 0; d < inner_d; ++d) off[k] += idx[d] * s.in[k].stride[d];
    }
    for (int64_t i0 = 0; i0 < inner; i0 += kTile) {
      const int n = static_cast<int>(std::min<int64_t>(kTile, inner - i0));
      TileOperand<C> t[kMaxArity];
      for (int k = 0; k < p.arity; ++k) {
        const int64_t step = s.in[k].stride[inner_d];  // 0 or 1
        const void* src = static_cast<const char*>(s.in[k].data) +
                          (off[k] + i0 * step) * dtype_size(p.operand[k]);
        if (is_stored_as<C>(p.operand[k]) && !converts) {
          t[k] = {static_cast<const C*>(src), step == 0};
        } else {
          convert_to<C>(buf[k], src, p.operand[k], step ? n : 1, p.types.operand_rounding);
          t[k] = {buf[k], step == 0};
        }
      }
      if (int_div) {
        const int m = t[1].scalar ? 1 : n;
        SLUICE_CHECK(std::find(t[1].v, t[1].v + m, C{0}) == t[1].v + m, InvalidArgument,
                     "Integer division by zero.");
      }
      char* dst = static_cast<char*>(s.out) + (o * inner + i0) * out_size;
      if (direct_out) {
        arith::apply_tile<C>(p.op, dst, t, n);
      } else if constexpr (!std::is_same_v<C, arith::Int65>) {  // Int65 only compares
        arith::apply_tile<C>(p.op, obuf, t, n);
        store_from<C>(dst, out_t, obuf, n);
      }
    }
    for (int d = inner_d - 1; d >= 0; --d) {
      if (++idx[d] < s.shape[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace

void arithmetic_cpu(const ArithParams& p, const ArithSampleDesc& s) {
  if (p.types.by_value) return run_sample<arith::Int65>(p, s);
  switch (p.types.compute) {
    case DType::kBool:
      return run_sample<bool>(p, s);
    case DType::kUInt8:
      return run_sample<uint8_t>(p, s);
    case DType::kInt8:
      return run_sample<int8_t>(p, s);
    case DType::kUInt16:
      return run_sample<uint16_t>(p, s);
    case DType::kInt16:
      return run_sample<int16_t>(p, s);
    case DType::kUInt32:
      return run_sample<uint32_t>(p, s);
    case DType::kInt32:
      return run_sample<int32_t>(p, s);
    case DType::kInt64:
      return run_sample<int64_t>(p, s);
    case DType::kUInt64:
      return run_sample<uint64_t>(p, s);
    case DType::kFloat32:
      return run_sample<float>(p, s);
    case DType::kFloat64:
      return run_sample<double>(p, s);
    default:
      throw InvalidArgument(
          make_string("arithmetic does not compute in ", dtype_name(p.types.compute)));
  }
}

}  // namespace sluice::kernels
