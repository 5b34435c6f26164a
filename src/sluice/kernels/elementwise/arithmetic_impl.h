#pragma once
// The per-element arithmetic operations, compiled for the host (CPU kernel) and the device
// (CUDA kernel) from one source. C is the compute type (arith_types()): bool, an integer type,
// float or double, or Int65 for comparisons of uint64 with signed integers. Results are DALI's: C++
// semantics in C, with the undefined cases defined - integer results wrap, shift counts are taken
// modulo the width of the promoted type (as x86 does), integer division and remainder by zero give
// 0 here (the CPU kernel refuses them before computing, as DALI does) and INT_MIN // -1 wraps.

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "sluice/core/float16.h"  // SLUICE_HOST_DEVICE
#include "sluice/kernels/elementwise/arithmetic.h"

// X-macros of the operations by kind, for the switches that map a run-time ArithOp to the
// compile-time one.
// clang-format off
#define SLUICE_ARITH_UNARY_OPS(X)                                                               \
  X(kMinus) X(kBitNot) X(kAbs) X(kFabs) X(kFloor) X(kCeil) X(kSqrt) X(kRsqrt) X(kCbrt) X(kExp)  \
  X(kLog) X(kLog2) X(kLog10) X(kSin) X(kCos) X(kTan) X(kAsin) X(kAcos) X(kAtan) X(kSinh)      \
  X(kCosh) X(kTanh) X(kAsinh) X(kAcosh) X(kAtanh)
#define SLUICE_ARITH_BINARY_OPS(X)                                                              \
  X(kAdd) X(kSub) X(kMul) X(kDiv) X(kFDiv) X(kMod) X(kMin) X(kMax) X(kPow) X(kFPow) X(kAtan2)   \
  X(kBitAnd) X(kBitOr) X(kBitXor) X(kLShift) X(kRShift)
#define SLUICE_ARITH_COMPARISON_OPS(X) X(kEq) X(kNeq) X(kLt) X(kLeq) X(kGt) X(kGeq)
// clang-format on

namespace sluice::kernels::arith {

// A value in int64's or uint64's range, compared exactly: DALI compares uint64 with signed
// integers by value, which neither 64-bit type can hold both sides of. Only compared.
struct Int65 {
  bool nonneg;    // negative values order first; each half orders as its 64 bits
  uint64_t bits;  // the value modulo 2^64

  Int65() = default;
  template <typename T>
  SLUICE_HOST_DEVICE explicit Int65(T v) : nonneg(true), bits(static_cast<uint64_t>(v)) {
    if constexpr (std::is_signed_v<T>) nonneg = !(v < 0);
  }
  SLUICE_HOST_DEVICE friend bool operator==(Int65 a, Int65 b) {
    return a.nonneg == b.nonneg && a.bits == b.bits;
  }
  SLUICE_HOST_DEVICE friend bool operator<(Int65 a, Int65 b) {
    return a.nonneg != b.nonneg ? b.nonneg : a.bits < b.bits;
  }
  SLUICE_HOST_DEVICE friend bool operator!=(Int65 a, Int65 b) { return !(a == b); }
  SLUICE_HOST_DEVICE friend bool operator>(Int65 a, Int65 b) { return b < a; }
  SLUICE_HOST_DEVICE friend bool operator<=(Int65 a, Int65 b) { return !(b < a); }
  SLUICE_HOST_DEVICE friend bool operator>=(Int65 a, Int65 b) { return !(a < b); }
};

template <typename C>
inline constexpr bool kIsInt = std::is_integral_v<C> && !std::is_same_v<C, bool>;
template <typename C>
inline constexpr bool kIsFloat = std::is_floating_point_v<C>;

// Whether `op` is computed in C (the operator refuses the other combinations before).
template <ArithOp op, typename C>
constexpr bool supports() {
  if constexpr (std::is_same_v<C, Int65>) {
    return is_comparison(op);
  } else if constexpr (op == ArithOp::kClamp) {
    return !std::is_same_v<C, bool>;
  } else if constexpr (is_comparison(op) || op == ArithOp::kMul) {
    return true;
  } else if constexpr (is_bitwise(op)) {
    return std::is_integral_v<C>;
  } else if constexpr (is_int_to_float(op)) {
    return kIsFloat<C>;
  } else if constexpr (op == ArithOp::kMod) {
    return kIsInt<C> || std::is_same_v<C, double>;
  } else {
    return !std::is_same_v<C, bool>;
  }
}

// Integer arithmetic in an unsigned type at least as wide as int: wraps, never overflows.
template <typename C>
using Wide = decltype(std::make_unsigned_t<C>{} + 0u);

template <typename C>
SLUICE_HOST_DEVICE inline C neg(C a) {
  if constexpr (kIsInt<C>) {
    return static_cast<C>(Wide<C>{0} - static_cast<Wide<C>>(a));
  } else {
    return -a;
  }
}

// a ** b of integers by squaring, wrapping; negative exponents give 0 (DALI's ipow).
template <typename C>
SLUICE_HOST_DEVICE inline C ipow(C a, C b) {
  if constexpr (std::is_signed_v<C>) {
    if (b < 0) return 0;
  }
  Wide<C> acc = 1, p = static_cast<Wide<C>>(a);
  for (auto e = static_cast<Wide<C>>(b); e > 0; e >>= 1) {
    if (e & 1) acc *= p;
    p *= p;
  }
  return static_cast<C>(acc);
}

// a << b and a >> b in C's integral promotion (int for narrower types), count modulo its width.
template <typename C>
SLUICE_HOST_DEVICE inline C shift(C a, C b, bool left) {
  using P = decltype(a + 0);  // int, unsigned, or the 64-bit type
  constexpr int kMask = sizeof(P) * 8 - 1;
  const int n = static_cast<int>(static_cast<P>(b) & kMask);
  const P x = static_cast<P>(a);
  if (left) return static_cast<C>(static_cast<P>(static_cast<std::make_unsigned_t<P>>(x) << n));
  return static_cast<C>(x >> n);
}

// float and double math functions with the same names on both sides (C's libm on the host,
// CUDA's on the device).
#define SLUICE_ARITH_MATH1(name)                        \
  SLUICE_HOST_DEVICE inline float m_##name(float x) {   \
    return ::name##f(x);                                \
  }                                                     \
  SLUICE_HOST_DEVICE inline double m_##name(double x) { \
    return ::name(x);                                   \
  }
SLUICE_ARITH_MATH1(fabs)
SLUICE_ARITH_MATH1(floor)
SLUICE_ARITH_MATH1(ceil)
SLUICE_ARITH_MATH1(sqrt)
SLUICE_ARITH_MATH1(cbrt)
SLUICE_ARITH_MATH1(exp)
SLUICE_ARITH_MATH1(log)
SLUICE_ARITH_MATH1(log2)
SLUICE_ARITH_MATH1(log10)
SLUICE_ARITH_MATH1(sin)
SLUICE_ARITH_MATH1(cos)
SLUICE_ARITH_MATH1(tan)
SLUICE_ARITH_MATH1(asin)
SLUICE_ARITH_MATH1(acos)
SLUICE_ARITH_MATH1(atan)
SLUICE_ARITH_MATH1(sinh)
SLUICE_ARITH_MATH1(cosh)
SLUICE_ARITH_MATH1(tanh)
SLUICE_ARITH_MATH1(asinh)
SLUICE_ARITH_MATH1(acosh)
SLUICE_ARITH_MATH1(atanh)
#undef SLUICE_ARITH_MATH1
SLUICE_HOST_DEVICE inline float m_pow(float x, float y) {
  return ::powf(x, y);
}
SLUICE_HOST_DEVICE inline double m_pow(double x, double y) {
  return ::pow(x, y);
}
SLUICE_HOST_DEVICE inline float m_atan2(float x, float y) {
  return ::atan2f(x, y);
}
SLUICE_HOST_DEVICE inline double m_atan2(double x, double y) {
  return ::atan2(x, y);
}
// 1 / sqrt(x) correctly rounded (in double), the same bits on both sides.
SLUICE_HOST_DEVICE inline float m_rsqrt(float x) {
  return static_cast<float>(1.0 / ::sqrt(static_cast<double>(x)));
}
SLUICE_HOST_DEVICE inline double m_rsqrt(double x) {
  return 1.0 / ::sqrt(x);
}

template <ArithOp op, typename C>
SLUICE_HOST_DEVICE inline C unary(C a) {
  if constexpr (op == ArithOp::kMinus) {
    return neg(a);
  } else if constexpr (op == ArithOp::kBitNot) {
    if constexpr (std::is_same_v<C, bool>) {
      return !a;
    } else {
      return static_cast<C>(~a);
    }
  } else if constexpr (op == ArithOp::kAbs) {
    if constexpr (std::is_unsigned_v<C>) {
      return a;
    } else {
      return a < 0 ? neg(a) : a;  // DALI's: -0.0 stays -0.0
    }
  }
#define SLUICE_ARITH_CASE(E, name) else if constexpr (op == ArithOp::E) return m_##name(a);
  SLUICE_ARITH_CASE(kFabs, fabs)
  SLUICE_ARITH_CASE(kFloor, floor)
  SLUICE_ARITH_CASE(kCeil, ceil)
  SLUICE_ARITH_CASE(kSqrt, sqrt)
  SLUICE_ARITH_CASE(kRsqrt, rsqrt)
  SLUICE_ARITH_CASE(kCbrt, cbrt)
  SLUICE_ARITH_CASE(kExp, exp)
  SLUICE_ARITH_CASE(kLog, log)
  SLUICE_ARITH_CASE(kLog2, log2)
  SLUICE_ARITH_CASE(kLog10, log10)
  SLUICE_ARITH_CASE(kSin, sin)
  SLUICE_ARITH_CASE(kCos, cos)
  SLUICE_ARITH_CASE(kTan, tan)
  SLUICE_ARITH_CASE(kAsin, asin)
  SLUICE_ARITH_CASE(kAcos, acos)
  SLUICE_ARITH_CASE(kAtan, atan)
  SLUICE_ARITH_CASE(kSinh, sinh)
  SLUICE_ARITH_CASE(kCosh, cosh)
  SLUICE_ARITH_CASE(kTanh, tanh)
  SLUICE_ARITH_CASE(kAsinh, asinh)
  SLUICE_ARITH_CASE(kAcosh, acosh)
  SLUICE_ARITH_CASE(kAtanh, atanh)
#undef SLUICE_ARITH_CASE
  else {
    static_assert(op != op, "not a unary operation");
  }
}

template <ArithOp op, typename C>
SLUICE_HOST_DEVICE inline C binary(C a, C b) {
  if constexpr (kIsInt<C> && (op == ArithOp::kAdd || op == ArithOp::kSub || op == ArithOp::kMul)) {
    using W = Wide<C>;
    const W x = static_cast<W>(a), y = static_cast<W>(b);
    return static_cast<C>(op == ArithOp::kAdd ? x + y : op == ArithOp::kSub ? x - y : x * y);
  } else if constexpr (op == ArithOp::kAdd) {
    return a + b;
  } else if constexpr (op == ArithOp::kSub) {
    return a - b;
  } else if constexpr (op == ArithOp::kMul) {
    if constexpr (std::is_same_v<C, bool>) {
      return a && b;
    } else {
      return a * b;
    }
  } else if constexpr (op == ArithOp::kDiv || op == ArithOp::kMod) {
    if constexpr (kIsInt<C>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return op == ArithOp::kDiv ? neg(a) : C{0};
      }
      return static_cast<C>(op == ArithOp::kDiv ? a / b : a % b);
    } else if constexpr (op == ArithOp::kDiv) {
      return a / b;
    } else {
      return ::fmod(a, b);
    }
  } else if constexpr (op == ArithOp::kFDiv) {
    return a / b;
  } else if constexpr (op == ArithOp::kMin) {
    return a < b ? a : b;
  } else if constexpr (op == ArithOp::kMax) {
    return a > b ? a : b;
  } else if constexpr (op == ArithOp::kPow) {
    if constexpr (kIsInt<C>) {
      return ipow(a, b);
    } else {
      return m_pow(a, b);
    }
  } else if constexpr (op == ArithOp::kFPow) {
    return m_pow(a, b);
  } else if constexpr (op == ArithOp::kAtan2) {
    return m_atan2(a, b);
  } else if constexpr (op == ArithOp::kBitAnd) {
    return static_cast<C>(a & b);
  } else if constexpr (op == ArithOp::kBitOr) {
    return static_cast<C>(a | b);
  } else if constexpr (op == ArithOp::kBitXor) {
    return static_cast<C>(a ^ b);
  } else if constexpr (op == ArithOp::kLShift || op == ArithOp::kRShift) {
    return shift(a, b, op == ArithOp::kLShift);
  } else {
    static_assert(op != op, "not a binary arithmetic operation");
  }
}

template <ArithOp op, typename C>
SLUICE_HOST_DEVICE inline bool compare(C a, C b) {
  if constexpr (op == ArithOp::kEq) {
    return a == b;
  } else if constexpr (op == ArithOp::kNeq) {
    return a != b;
  } else if constexpr (op == ArithOp::kLt) {
    return a < b;
  } else if constexpr (op == ArithOp::kLeq) {
    return a <= b;
  } else if constexpr (op == ArithOp::kGt) {
    return a > b;
  } else {
    static_assert(op == ArithOp::kGeq, "not a comparison");
    return a >= b;
  }
}

// DALI's clamp on the host: NaN bounds and values pass as in `v < lo ? lo : v`.
template <typename C>
SLUICE_HOST_DEVICE inline C clamp(C v, C lo, C hi) {
  const C x = v < lo ? lo : v;
  return x > hi ? hi : x;
}

}  // namespace sluice::kernels::arith
