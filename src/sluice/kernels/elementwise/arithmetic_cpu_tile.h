#pragma once
// The CPU kernel's inner loops (internal to arithmetic_cpu*.cc): one operation over a tile of
// operands already converted to the compute type C. Each operand is a run (step 1) or a single
// value (step 0); the loops for each combination are separate so that the compiler vectorises
// them. apply_tile<C> is instantiated per compute type in arithmetic_cpu_int.cc and
// arithmetic_cpu_float.cc.

#include <cstdint>
#include <type_traits>

#include "sluice/core/error.h"
#include "sluice/kernels/elementwise/arithmetic_impl.h"

namespace sluice::kernels::arith {

// An operand of a tile: n values, or one value repeated (scalar).
template <typename C>
struct TileOperand {
  const C* v;
  bool scalar;
};

template <ArithOp op, typename C>
void unary_tile(C* out, TileOperand<C> a, int n) {
  if (a.scalar) {
    const C r = unary<op>(a.v[0]);
    for (int i = 0; i < n; ++i) out[i] = r;
    return;
  }
  for (int i = 0; i < n; ++i) out[i] = unary<op>(a.v[i]);
}

// F is binary<op> or compare<op>; O is C or bool.
template <typename O, typename C, typename F>
void binary_tile(O* out, TileOperand<C> a, TileOperand<C> b, int n, F f) {
  if (!a.scalar && !b.scalar) {
    for (int i = 0; i < n; ++i) out[i] = f(a.v[i], b.v[i]);
  } else if (!a.scalar) {
    const C y = b.v[0];
    for (int i = 0; i < n; ++i) out[i] = f(a.v[i], y);
  } else if (!b.scalar) {
    const C x = a.v[0];
    for (int i = 0; i < n; ++i) out[i] = f(x, b.v[i]);
  } else {
    const O r = f(a.v[0], b.v[0]);
    for (int i = 0; i < n; ++i) out[i] = r;
  }
}

template <typename C>
void clamp_tile(C* out, TileOperand<C> v, TileOperand<C> lo, TileOperand<C> hi, int n) {
  const int sv = v.scalar ? 0 : 1, sl = lo.scalar ? 0 : 1, sh = hi.scalar ? 0 : 1;
  for (int i = 0; i < n; ++i) out[i] = clamp(v.v[i * sv], lo.v[i * sl], hi.v[i * sh]);
}

// out (C, or bool for comparisons) = op(in...) over n elements.
template <typename C>
void apply_tile(ArithOp op, void* out, const TileOperand<C>* in, int n) {
  C* o = static_cast<C*>(out);
  switch (op) {
#define SLUICE_ARITH_CASE(E)                   \
  case ArithOp::E:                             \
    if constexpr (supports<ArithOp::E, C>()) { \
      unary_tile<ArithOp::E>(o, in[0], n);     \
      return;                                  \
    }                                          \
    break;
    SLUICE_ARITH_UNARY_OPS(SLUICE_ARITH_CASE)
#undef SLUICE_ARITH_CASE
#define SLUICE_ARITH_CASE(E)                                                              \
  case ArithOp::E:                                                                        \
    if constexpr (supports<ArithOp::E, C>()) {                                            \
      binary_tile(o, in[0], in[1], n, [](C x, C y) { return binary<ArithOp::E>(x, y); }); \
      return;                                                                             \
    }                                                                                     \
    break;
    SLUICE_ARITH_BINARY_OPS(SLUICE_ARITH_CASE)
#undef SLUICE_ARITH_CASE
#define SLUICE_ARITH_CASE(E)                                         \
  case ArithOp::E:                                                   \
    binary_tile(static_cast<bool*>(out), in[0], in[1], n,            \
                [](C x, C y) { return compare<ArithOp::E>(x, y); }); \
    return;
    SLUICE_ARITH_COMPARISON_OPS(SLUICE_ARITH_CASE)
#undef SLUICE_ARITH_CASE
    case ArithOp::kClamp:
      if constexpr (supports<ArithOp::kClamp, C>()) {
        clamp_tile(o, in[0], in[1], in[2], n);
        return;
      }
      break;
  }
  throw InvalidArgument(
      make_string("arithmetic operation `", arith_op_symbol(op), "` is not computed in this type"));
}

}  // namespace sluice::kernels::arith
