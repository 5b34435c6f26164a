// "_arithmetic": the operator behind DataNode expressions (a + b, a // 2, -a, a < b, a & b, ...)
// and sluice.math, DALI's arithmetic operator: one operation of one to three operands, each an
// input or a typed constant.

#include <algorithm>
#include <cctype>
#include <cstring>
#include <utility>

#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/elementwise/broadcast.h"
#include "sluice/ops/generic/arithmetic_op.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

OpSchema arithmetic_schema() {
  std::vector<std::string> names;
  for (int i = 0; i < kernels::kNumArithOps; ++i) {
    names.emplace_back(kernels::arith_op_name(static_cast<kernels::ArithOp>(i)));
  }
  return OpSchema("_arithmetic")
      .doc(
          "Element-wise arithmetic of one to three operands with broadcasting and DALI's type "
          "promotion; the operator behind DataNode expressions and sluice.math.")
      .num_inputs(1, kernels::kMaxArity)
      .devices({OpDevice::kCPU, OpDevice::kGPU})
      .enum_arg("op", names, "add", "The operation (DALI's name).")
      .arg("constant_positions", ArgType::kIntList, std::vector<int64_t>{},
           "The operands that are constants (positions); the inputs are the others, in order.")
      .arg("constant_types", ArgType::kStringList, std::vector<std::string>{},
           "The type of each constant.")
      .arg("integer_constants", ArgType::kIntList, std::vector<int64_t>{},
           "The values of the constants of integral types, in order.")
      .arg("real_constants", ArgType::kFloatList, std::vector<double>{},
           "The values of the constants of floating types, in order; used as float32, as DALI.")
      .internal();
}
SLUICE_REGISTER_SCHEMA(arithmetic_schema());

class ArithmeticCpu : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override { ops_ = parse_arithmetic(spec_); }
  void run(Workspace& ws) override {
    const ArithmeticPlan plan = plan_arithmetic(ops_, ws);
    TensorList& out = ws.output(0);
    out.resize(plan.shapes, plan.params.types.result);
    out.set_layout(plan.layout);
    ws.for_each_sample(
        [&](int i, int) {
          kernels::arithmetic_cpu(plan.params,
                                  arithmetic_sample(ops_, plan, ws, out.raw_sample(i), i));
        },
        inline_below(out));
  }

 private:
  ArithmeticOperands ops_;
};

SLUICE_REGISTER_OPERATOR("_arithmetic", OpDevice::kCPU, ArithmeticCpu);

template <typename T>
uint64_t bits_of(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

// DALI's type names in messages: "uint8", "int32".
std::string type_name(DType t) {
  std::string s(dtype_name(t));
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The constant's value in `t` (DALI's ConstantStorage): integers must fit the type.
uint64_t constant_bits(DType t, int64_t ivalue, double rvalue) {
  if (dtype_is_float(t)) {
    const float f = static_cast<float>(rvalue);  // DALI passes floating constants as float32
    switch (t) {
      case DType::kFloat16:
        return bits_of(float16(f));
      case DType::kBFloat16:
        return bits_of(bfloat16(f));
      case DType::kFloat32:
        return bits_of(f);
      default:
        return bits_of(static_cast<double>(f));
    }
  }
  return dtype_dispatch(t, [&](auto tag) -> uint64_t {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      SLUICE_CHECK(std::in_range<T>(ivalue), InvalidArgument, "Integer constant ", ivalue,
                   " out of range for ", type_name(t), ".");
      return bits_of(static_cast<T>(ivalue));
    } else if constexpr (std::is_same_v<T, bool>) {
      return bits_of(ivalue != 0);
    } else {
      return 0;
    }
  });
}

}  // namespace

ArithmeticOperands parse_arithmetic(const OpSpec& spec) {
  ArithmeticOperands ops;
  ops.op = kernels::parse_arith_op(spec.arg<std::string>("op"));
  ops.arity = kernels::arith_arity(ops.op);
  const auto positions = spec.arg<std::vector<int64_t>>("constant_positions");
  const auto types = spec.arg<std::vector<std::string>>("constant_types");
  const auto ints = spec.arg<std::vector<int64_t>>("integer_constants");
  const auto reals = spec.arg<std::vector<double>>("real_constants");
  SLUICE_CHECK(positions.size() == types.size(), InvalidArgument,
               "constant_positions and constant_types differ in length");
  const int num_inputs = static_cast<int>(spec.inputs.size());
  SLUICE_CHECK(num_inputs + static_cast<int>(positions.size()) == ops.arity, InvalidArgument,
               "arithmetic operation `", kernels::arith_op_symbol(ops.op), "` takes ", ops.arity,
               " operand(s); got ", num_inputs, " input(s) and ", positions.size(), " constant(s)");
  bool is_const[kernels::kMaxArity] = {};
  size_t next_int = 0, next_real = 0;
  for (size_t c = 0; c < positions.size(); ++c) {
    const int64_t k = positions[c];
    SLUICE_CHECK(k >= 0 && k < ops.arity && !is_const[k], InvalidArgument, "bad constant position ",
                 k);
    is_const[k] = true;
    const DType t = parse_dtype(types[c]);
    ops.constant_type[k] = t;
    if (dtype_is_float(t)) {
      SLUICE_CHECK(next_real < reals.size(), InvalidArgument, "too few real_constants");
      ops.constant_bits[k] = constant_bits(t, 0, reals[next_real++]);
    } else {
      SLUICE_CHECK(next_int < ints.size(), InvalidArgument, "too few integer_constants");
      ops.constant_bits[k] = constant_bits(t, ints[next_int++], 0);
    }
  }
  for (int k = 0, in = 0; k < ops.arity; ++k) ops.input_of[k] = is_const[k] ? -1 : in++;
  return ops;
}

ArithmeticPlan plan_arithmetic(const ArithmeticOperands& ops, const Workspace& ws) {
  ArithmeticPlan plan;
  kernels::ArithParams& p = plan.params;
  p.op = ops.op;
  p.arity = ops.arity;
  const int n = ws.batch_size();
  // Shapes first, then types, then layouts: the order in which DALI reports errors.
  plan.shapes.resize(n);
  const Shape* shapes[kernels::kMaxArity] = {};
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < ops.arity; ++k) {
      shapes[k] = ops.input_of[k] >= 0 ? &ws.input(ops.input_of[k]).shape(i) : nullptr;
    }
    plan.shapes[i] = kernels::broadcast_shape({shapes, static_cast<size_t>(ops.arity)}, i);
  }
  for (int k = 0; k < ops.arity; ++k) {
    if (ops.input_of[k] >= 0) {
      p.operand[k] = ws.input(ops.input_of[k]).dtype();
    } else {
      p.operand[k] = ops.constant_type[k];
      p.constant[k] = ops.constant_bits[k];
      p.constant_mask |= 1 << k;
    }
  }
  p.types = kernels::arith_types(ops.op, {p.operand, static_cast<size_t>(ops.arity)});
  // DALI's common layout: the operands' layouts must be equal or suffixes of one another; the
  // longest is kept if it names every output dimension.
  Layout layout;
  for (int k = 0; k < ops.arity; ++k) {
    if (ops.input_of[k] < 0) continue;
    const Layout& next = ws.input(ops.input_of[k]).layout();
    const Layout& longer = next.size() > layout.size() ? next : layout;
    const Layout& shorter = next.size() > layout.size() ? layout : next;
    SLUICE_CHECK(longer.ends_with(shorter), InvalidArgument, "Layouts of subexpressions ", k - 1,
                 " and ", k, " for arithmetic operation ", kernels::arith_op_name(ops.op),
                 " do not match. They must be equal or one must be a suffix of the other. Got ",
                 layout, " and ", next, ".");
    layout = longer;
  }
  const size_t ndim = n > 0 ? plan.shapes[0].size() : 0;
  plan.layout = layout.size() == ndim ? layout : Layout();
  return plan;
}

kernels::ArithSampleDesc arithmetic_sample(const ArithmeticOperands& ops,
                                           const ArithmeticPlan& plan, const Workspace& ws,
                                           void* out, int i) {
  const void* data[kernels::kMaxArity] = {};
  const Shape* shapes[kernels::kMaxArity] = {};
  for (int k = 0; k < ops.arity; ++k) {
    if (ops.input_of[k] >= 0) {
      const TensorList& in = ws.input(ops.input_of[k]);
      data[k] = in.raw_sample(i);
      shapes[k] = &in.shape(i);
    } else {
      data[k] = &plan.params.constant[k];
    }
  }
  kernels::ArithSampleDesc desc;
  const auto n = static_cast<size_t>(ops.arity);
  kernels::describe_arith_sample(desc, out, plan.shapes[i], {data, n}, {shapes, n});
  return desc;
}

}  // namespace sluice
