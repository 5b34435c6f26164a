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

// One element. Integral compute types use int64 with wrapping results; floating compute types use
// double and round to the compute type after every operation (which gives the same bits as
// computing in that type for + - * /). Integer division by zero gives 0 (no trap).
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
    // The compute type holds both operands' ranges (promotion rules), so only results wrap.
    int64_t r = 0;
    switch (op) {
      case ArithOp::kAdd:
        r = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
        break;
      case ArithOp::kSub:
        r = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
        break;
      case ArithOp::kMul:
        r = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
        break;
      case ArithOp::kFloorDiv:
      case ArithOp::kDiv:  // integral compute type only for //
        if (y == 0) {
          r = 0;
        } else if (y == -1) {
          r = static_cast<int64_t>(0 - static_cast<uint64_t>(x));
        } else {
          r = x / y;
          if ((x % y != 0) && ((x < 0) != (y < 0))) --r;  // floor, as Python's //
        }
        break;
      case ArithOp::kNeg:
        r = static_cast<int64_t>(0 - static_cast<uint64_t>(x));
        break;
      case ArithOp::kEq:
        r = x == y;
        break;
      case ArithOp::kNe:
        r = x != y;
        break;
      case ArithOp::kLt:
        r = x < y;
        break;
      case ArithOp::kLe:
        r = x <= y;
        break;
      case ArithOp::kGt:
        r = x > y;
        break;
      case ArithOp::kGe:
        r = x >= y;
        break;
    }
    store_wrap(out, result, oi, r);
    return;
  }
  // Operands are first rounded to the compute type (as numpy casts before operating).
  auto round_to = [compute](double v) -> double {
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
  };
  double x = round_to(load_f64(a, ta, ai));
  double y = round_to(b_is_scalar ? scalar : load_f64(b, tb, bi));
  if (scalar_left) {
    double t = x;
    x = y;
    y = t;
  }
  double r = 0;
  switch (op) {
    case ArithOp::kAdd:
      r = round_to(x + y);
      break;
    case ArithOp::kSub:
      r = round_to(x - y);
      break;
    case ArithOp::kMul:
      r = round_to(x * y);
      break;
    case ArithOp::kDiv:
      r = round_to(x / y);
      break;
    case ArithOp::kFloorDiv:
      r = floor(round_to(x / y));
      break;
    case ArithOp::kNeg:
      r = -x;
      break;
    case ArithOp::kEq:
      r = x == y;
      break;
    case ArithOp::kNe:
      r = x != y;
      break;
    case ArithOp::kLt:
      r = x < y;
      break;
    case ArithOp::kLe:
      r = x <= y;
      break;
    case ArithOp::kGt:
      r = x > y;
      break;
    case ArithOp::kGe:
      r = x >= y;
      break;
  }
  if (result == DType::kBool) {
    store_wrap(out, result, oi, r != 0);
  } else {
    store_sat(out, result, oi, r);
  }
}

}  // namespace sluice::kernels
