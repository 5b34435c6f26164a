#include "sluice/kernels/elementwise/arithmetic.h"

#include <algorithm>

#include "sluice/core/error.h"

namespace sluice::kernels {
namespace {

struct OpName {
  std::string_view name, symbol;
};

// Indexed by ArithOp.
constexpr OpName kOpNames[kNumArithOps] = {
    {"minus", "-"},     {"bitnot", "~"},  {"abs", "abs"},     {"fabs", "fabs"},
    {"floor", "floor"}, {"ceil", "ceil"}, {"sqrt", "sqrt"},   {"rsqrt", "rsqrt"},
    {"cbrt", "cbrt"},   {"exp", "exp"},   {"log", "log"},     {"log2", "log2"},
    {"log10", "log10"}, {"sin", "sin"},   {"cos", "cos"},     {"tan", "tan"},
    {"asin", "asin"},   {"acos", "acos"}, {"atan", "atan"},   {"sinh", "sinh"},
    {"cosh", "cosh"},   {"tanh", "tanh"}, {"asinh", "asinh"}, {"acosh", "acosh"},
    {"atanh", "atanh"}, {"add", "+"},     {"sub", "-"},       {"mul", "*"},
    {"div", "//"},      {"fdiv", "/"},    {"mod", "%"},       {"min", "min"},
    {"max", "max"},     {"pow", "pow"},   {"fpow", "fpow"},   {"atan2", "atan2"},
    {"bitand", "&"},    {"bitor", "|"},   {"bitxor", "^"},    {"lshift", "<<"},
    {"rshift", ">>"},   {"eq", "=="},     {"neq", "!="},      {"lt", "<"},
    {"leq", "<="},      {"gt", ">"},      {"geq", ">="},      {"clamp", "clamp"},
};

bool is_half(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16;
}

int int_bits(DType t) {
  return static_cast<int>(dtype_size(t)) * 8;
}

DType signed_of_bits(int bits) {
  switch (bits) {
    case 8:
      return DType::kInt8;
    case 16:
      return DType::kInt16;
    case 32:
      return DType::kInt32;
    default:
      return DType::kInt64;
  }
}

// Arithmetic other than `*`, and the unary operations, refuse booleans only (DALI's
// CheckArithmeticOnBooleans).
bool refuses_all_bool(ArithOp op) {
  return !is_comparison(op) && !is_bitwise(op) && op != ArithOp::kMul;
}

}  // namespace

ArithOp parse_arith_op(std::string_view name) {
  for (int i = 0; i < kNumArithOps; ++i) {
    if (kOpNames[i].name == name) return static_cast<ArithOp>(i);
  }
  throw InvalidArgument(make_string("unknown arithmetic operation '", name, "'"));
}

std::string_view arith_op_name(ArithOp op) {
  return kOpNames[static_cast<int>(op)].name;
}

std::string_view arith_op_symbol(ArithOp op) {
  return kOpNames[static_cast<int>(op)].symbol;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::kBool) return b;
  if (b == DType::kBool) return a;
  const bool fa = dtype_is_float(a), fb = dtype_is_float(b);
  if (fa != fb) return fa ? a : b;
  if (fa) {
    if (is_half(a) && is_half(b)) return DType::kFloat32;
    return dtype_size(a) >= dtype_size(b) ? a : b;
  }
  const bool sa = dtype_is_signed(a), sb = dtype_is_signed(b);
  if (sa == sb) return dtype_size(a) >= dtype_size(b) ? a : b;
  const DType s = sa ? a : b, u = sa ? b : a;
  if (int_bits(s) > int_bits(u)) return s;
  return signed_of_bits(std::min(2 * int_bits(u), 64));
}

ArithTypes arith_types(ArithOp op, std::span<const DType> operands) {
  SLUICE_CHECK(static_cast<int>(operands.size()) == arith_arity(op), InvalidArgument,
               "arithmetic operation `", arith_op_symbol(op), "` takes ", arith_arity(op),
               " operand(s), got ", operands.size());
  const bool all_bool =
      std::all_of(operands.begin(), operands.end(), [](DType t) { return t == DType::kBool; });
  if (all_bool && refuses_all_bool(op)) {
    if (operands.size() == 1) {
      throw InvalidArgument(make_string("Input to arithmetic operator `", arith_op_symbol(op),
                                        "` cannot be a boolean. Consider using bitwise operator "
                                        "`~` or an numeric type."));
    }
    throw InvalidArgument(make_string(
        "Inputs to arithmetic operator `", arith_op_symbol(op),
        "` cannot be booleans. Consider using bitwise operators `|`, `&`, `^` or a numeric type "
        "as one of the inputs to force type promotions of the booleans. Note: using `*` "
        "(multiplication) is still allowed for boolean inputs."));
  }
  if (is_bitwise(op)) {
    for (DType t : operands) {
      SLUICE_CHECK(!dtype_is_float(t), InvalidArgument, "Inputs to bitwise operator `",
                   arith_op_symbol(op), "` must be of integral type.");
    }
  }
  DType promoted = operands[0];
  for (size_t i = 1; i < operands.size(); ++i) promoted = promote_types(promoted, operands[i]);

  ArithTypes t;
  if (is_comparison(op)) {
    t.result = DType::kBool;
    t.compute = is_half(promoted) ? DType::kFloat32 : promoted;
    t.operand_rounding = t.compute;
    t.by_value = promoted == DType::kInt64 &&
                 std::find(operands.begin(), operands.end(), DType::kUInt64) != operands.end();
    return t;
  }
  t.result = is_int_to_float(op) && !dtype_is_float(promoted) ? DType::kFloat32 : promoted;
  if (op == ArithOp::kMod && dtype_is_float(t.result)) {
    // fmod is exact: computed on the operands as given, then rounded to the result type.
    t.compute = t.operand_rounding = DType::kFloat64;
  } else if (is_half(t.result)) {
    t.compute = DType::kFloat32;
    t.operand_rounding = t.result;
  } else {
    t.compute = t.operand_rounding = t.result;
  }
  return t;
}

}  // namespace sluice::kernels
