#pragma once
// Element-wise arithmetic of DataNode expressions and sluice.math (DALI's arithmetic operator):
// the operations, their arity, and the types they return and compute in. The per-element
// operations are in arithmetic_impl.h, shared by the CPU kernel and the CUDA kernel.

#include <cstdint>
#include <span>
#include <string_view>

#include "sluice/core/dtype.h"

namespace sluice::kernels {

// DALI's names in parse_arith_op(); grouped by arity (see arith_arity()).
enum class ArithOp : uint8_t {
  // Unary.
  kMinus,
  kBitNot,
  kAbs,
  kFabs,
  kFloor,
  kCeil,
  kSqrt,
  kRsqrt,
  kCbrt,
  kExp,
  kLog,
  kLog2,
  kLog10,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kTanh,
  kAsinh,
  kAcosh,
  kAtanh,
  // Binary.
  kAdd,
  kSub,
  kMul,
  kDiv,   // //: C division for integers (truncation), plain division for floats
  kFDiv,  // /: floating division, integers give float32
  kMod,   // %: C remainder for integers, fmod for floats
  kMin,
  kMax,
  kPow,
  kFPow,
  kAtan2,
  kBitAnd,
  kBitOr,
  kBitXor,
  kLShift,
  kRShift,
  kEq,
  kNeq,
  kLt,
  kLeq,
  kGt,
  kGeq,
  // Ternary.
  kClamp,
};
inline constexpr int kNumArithOps = static_cast<int>(ArithOp::kClamp) + 1;
inline constexpr int kMaxArity = 3;

ArithOp parse_arith_op(std::string_view name);  // DALI's names: "add", "fdiv", "bitand", ...
std::string_view arith_op_name(ArithOp op);
// How DALI shows the operation in errors: "+", "//", "sqrt", ...
std::string_view arith_op_symbol(ArithOp op);

constexpr int arith_arity(ArithOp op) {
  return op < ArithOp::kAdd ? 1 : op < ArithOp::kClamp ? 2 : 3;
}
constexpr bool is_comparison(ArithOp op) {
  return op >= ArithOp::kEq && op <= ArithOp::kGeq;
}
constexpr bool is_bitwise(ArithOp op) {
  return op == ArithOp::kBitNot || (op >= ArithOp::kBitAnd && op <= ArithOp::kRShift);
}
// Operations that give floats for integer operands (DALI's IsIntToFloatResult).
constexpr bool is_int_to_float(ArithOp op) {
  return (op >= ArithOp::kFabs && op <= ArithOp::kAtanh) || op == ArithOp::kFDiv ||
         op == ArithOp::kFPow || op == ArithOp::kAtan2;
}

// Promotion of two operand types (DALI's table): bool < integers < floats; integers of mixed
// signedness go to a signed type twice as wide as the unsigned one (int64 at most: uint64 with a
// signed type gives int64); any integer with a float gives that float; float16 (and bfloat16)
// with a wider float gives the wider one, float16 with bfloat16 float32.
DType promote_types(DType a, DType b);

// The types of one operation on operands of the given types.
struct ArithTypes {
  DType result;   // of the output
  DType compute;  // the element loop's type: the result type, float32 for 16-bit floats and
                  // for comparisons between them; float64 for % of floats
  // kFloat16 or kBFloat16 when operands are rounded to that type before computing (as DALI
  // casts them to the result type), else the result type itself.
  DType operand_rounding;
  // Comparisons of uint64 with signed integers, which DALI answers by value: compute is int64
  // (the promoted type), but the kernels compare in arith::Int65, which holds both operands.
  bool by_value = false;
};

// Throws InvalidArgument with DALI's messages for operations DALI refuses: arithmetic other than
// `*` on booleans only, bitwise operations on floats.
ArithTypes arith_types(ArithOp op, std::span<const DType> operands);

}  // namespace sluice::kernels
