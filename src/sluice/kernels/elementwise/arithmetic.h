#pragma once
// Element-wise arithmetic of DataNode expressions (+ - * / //, unary minus, comparisons):
// type promotion and the per-element operation, shared by the CPU reference and the CUDA kernel.

#include <cmath>
#include <cstdint>
#include <string_view>

#include "sluice/kernels/elementwise/convert.h"

namespace sluice::kernels {

enum class ArithOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kNeg,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe
};

ArithOp parse_arith_op(std::string_view name);
bool is_comparison(ArithOp op);

// Promotion of two tensor types (numpy-like): bool < integers < floats; mixed signedness goes to
// a signed type wide enough for both (up to int64); float16 with bfloat16 gives float32.
DType promote_types(DType a, DType b);
// Type of `tensor op scalar`: the scalar is "weak" (a Python constant does not widen the tensor's
// type), except that a float scalar with an integer tensor gives float32.
DType promote_with_scalar(DType tensor, bool scalar_is_float);
// The type the operation computes in and the type it returns.
struct ArithTypes {
  DType compute;
  DType result;
};
ArithTypes arith_types(ArithOp op, DType operands);

// The operations of the integral compute path: int64 with wrapping results (the compute type
// holds both operands' ranges by the promotion rules, so only results wrap); division floors, as
// Python's //, and division by zero gives 0 (no trap).
struct IntArith {
  SLUICE_HOST_DEVICE int64_t add(int64_t x, int64_t y) const {
    return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
  }
  SLUICE_HOST_DEVICE int64_t sub(int64_t x, int64_t y) const {
    return static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
  }
  SLUICE_HOST_DEVICE int64_t mul(int64_t x, int64_t y) const {
    return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
  }
  SLUICE_HOST_DEVICE int64_t floor_div(int64_t x, int64_t y) const {
    if (y == 0) return 0;
    if (y == -1) return neg(x);
    int64_t r = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) --r;
    return r;
  }
  SLUICE_HOST_DEVICE int64_t div(int64_t x, int64_t y) const {  // integral compute type only for //
    return floor_div(x, y);
  }
  SLUICE_HOST_DEVICE int64_t neg(int64_t x) const {
    return static_cast<int64_t>(0 - static_cast<uint64_t>(x));
  }
};

// The operations of the floating compute path: double, rounded to the compute type after every
// operation (which gives the same bits as computing in that type for + - * /).
struct FloatArith {
  DType compute;
  SLUICE_HOST_DEVICE double round_to(double v) const {
    switch (compute) {
      case DType::kFloat16:
        return half_bits_to_float(float_to_half_bits(static_cast<float>(v)));
      case DType::kBFloat16:
        return bfloat16_bits_to_float(float_to_bfloat16_bits(static_cast<float>(v)));
      case DType::kFloat32:
        return static_cast<float>(v);
      default:
        return v;
    }
  }
  SLUICE_HOST_DEVICE double add(double x, double y) const { return round_to(x + y); }
  SLUICE_HOST_DEVICE double sub(double x, double y) const { return round_to(x - y); }
  SLUICE_HOST_DEVICE double mul(double x, double y) const { return round_to(x * y); }
  SLUICE_HOST_DEVICE double div(double x, double y) const { return round_to(x / y); }
  SLUICE_HOST_DEVICE double floor_div(double x, double y) const { return floor(round_to(x / y)); }
  SLUICE_HOST_DEVICE double neg(double x) const { return -x; }
};

// `x op y` in the compute representation T (int64_t or double) of `arith`; comparisons give 0 or 1.
template <typename T, typename Arith>
SLUICE_HOST_DEVICE inline T apply_arith(ArithOp op, T x, T y, const Arith& arith) {
  switch (op) {
    case ArithOp::kAdd:
      return arith.add(x, y);
    case ArithOp::kSub:
      return arith.sub(x, y);
    case ArithOp::kMul:
      return arith.mul(x, y);
    case ArithOp::kDiv:
      return arith.div(x, y);
    case ArithOp::kFloorDiv:
      return arith.floor_div(x, y);
    case ArithOp::kNeg:
      return arith.neg(x);
    case ArithOp::kEq:
      return x == y;
    case ArithOp::kNe:
      return x != y;
    case ArithOp::kLt:
      return x < y;
    case ArithOp::kLe:
      return x <= y;
    case ArithOp::kGt:
      return x > y;
    case ArithOp::kGe:
      return x >= y;
  }
  return 0;
}

// One element, computed by IntArith or FloatArith after the operands are loaded (and, for
// floating compute types, first rounded to the compute type, as numpy casts before operating).
SLUICE_HOST_DEVICE inline void arith_element(ArithOp op, DType compute, DType result, void* out,
                                             int64_t oi, const void* a, DType ta, int64_t ai,
                                             const void* b, DType tb, int64_t bi, double scalar,
                                             bool b_is_scalar, bool scalar_left) {
  if (!is_float_type(compute)) {
    int64_t x = load_i64(a, ta, ai);
    int64_t y = b_is_scalar ? static_cast<int64_t>(scalar) : load_i64(b, tb, bi);
    if (scalar_left) {
      int64_t t = x;
      x = y;
      y = t;
    }
    store_wrap(out, result, oi, apply_arith(op, x, y, IntArith{}));
    return;
  }
  const FloatArith arith{compute};
  double x = arith.round_to(load_f64(a, ta, ai));
  double y = arith.round_to(b_is_scalar ? scalar : load_f64(b, tb, bi));
  if (scalar_left) {
    double t = x;
    x = y;
    y = t;
  }
  const double r = apply_arith(op, x, y, arith);
  if (result == DType::kBool) {
    store_wrap(out, result, oi, r != 0);
  } else {
    store_sat(out, result, oi, r);
  }
}

}  // namespace sluice::kernels
