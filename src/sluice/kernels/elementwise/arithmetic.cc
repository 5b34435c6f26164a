#include "sluice/kernels/elementwise/arithmetic.h"

#include <algorithm>

#include "sluice/core/error.h"

namespace sluice::kernels {

ArithOp parse_arith_op(std::string_view n) {
  static const std::pair<std::string_view, ArithOp> kOps[] = {{"add", ArithOp::kAdd},
                                                              {"sub", ArithOp::kSub},
                                                              {"mul", ArithOp::kMul},
                                                              {"div", ArithOp::kDiv},
                                                              {"floordiv", ArithOp::kFloorDiv},
                                                              {"neg", ArithOp::kNeg},
                                                              {"eq", ArithOp::kEq},
                                                              {"ne", ArithOp::kNe},
                                                              {"lt", ArithOp::kLt},
                                                              {"le", ArithOp::kLe},
                                                              {"gt", ArithOp::kGt},
                                                              {"ge", ArithOp::kGe}};
  for (const auto& [name, op] : kOps) {
    if (name == n) return op;
  }
  throw InvalidArgument(make_string("unknown arithmetic operation '", n, "'"));
}

bool is_comparison(ArithOp op) {
  return op >= ArithOp::kEq;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::kBool) return b;
  if (b == DType::kBool) return a;
  const bool fa = dtype_is_float(a), fb = dtype_is_float(b);
  if (fa && !fb) return a;
  if (fb && !fa) return b;
  if (fa && fb) {
    if (dtype_size(a) != dtype_size(b)) return dtype_size(a) > dtype_size(b) ? a : b;
    return DType::kFloat32;  // float16 with bfloat16
  }
  const bool sa = dtype_is_signed(a), sb = dtype_is_signed(b);
  if (sa == sb) return dtype_size(a) >= dtype_size(b) ? a : b;
  DType s = sa ? a : b, u = sa ? b : a;
  if (dtype_size(s) > dtype_size(u)) return s;
  switch (dtype_size(u)) {
    case 1:
      return DType::kInt16;
    case 2:
      return DType::kInt32;
    default:
      return DType::kInt64;
  }
}

DType promote_with_scalar(DType tensor, bool scalar_is_float) {
  if (scalar_is_float) return dtype_is_float(tensor) ? tensor : DType::kFloat32;
  return tensor == DType::kBool ? DType::kInt32 : tensor;
}

ArithTypes arith_types(ArithOp op, DType operands) {
  if (op == ArithOp::kDiv) {
    DType c = dtype_is_float(operands) ? operands : DType::kFloat32;
    return {c, c};
  }
  if (is_comparison(op)) return {operands, DType::kBool};
  return {operands, operands};
}

}  // namespace sluice::kernels
