// "_arithmetic": the operator behind DataNode expressions (a + b, a * 2, -a, a < b, ...).

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/arithmetic_op.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("_arithmetic")
        .doc("Element-wise arithmetic of one or two tensors, or a tensor and a constant. Types "
             "promote as in numpy (a Python constant does not widen the tensor's type); '/' "
             "gives floats; '//' floors; integer division by zero gives 0.")
        .num_inputs(1, 2)
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .enum_arg("op",
                  {"add", "sub", "mul", "div", "floordiv", "neg", "eq", "ne", "lt", "le", "gt",
                   "ge"},
                  "add", "The operation.")
        .optional_arg("scalar", ArgType::kFloat, "Constant second operand.")
        .arg("scalar_is_int", ArgType::kBool, false, "The constant is a Python int.")
        .arg("scalar_left", ArgType::kBool, false, "The constant is the left operand.")
        .internal());

class ArithmeticCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    ArithmeticPlan plan = plan_arithmetic(spec_, ws);
    TensorList& out = ws.output(0);
    const TensorList& a = ws.input(0);
    const TensorList* b = ws.num_inputs() > 1 ? &ws.input(1) : nullptr;
    out.resize(plan.shapes, plan.params.result);
    out.set_layout(a.layout());
    ws.for_each_sample(
        [&](int i, int) {
          kernels::arithmetic_cpu(plan.params, out.raw_sample(i), a.raw_sample(i), plan.a_step[i],
                                  b ? b->raw_sample(i) : nullptr, plan.b_step[i],
                                  volume(plan.shapes[i]));
        },
        inline_below(a));
  }
};

SLUICE_REGISTER_OPERATOR("_arithmetic", OpDevice::kCPU, ArithmeticCpu);

}  // namespace

ArithmeticPlan plan_arithmetic(const OpSpec& spec, const Workspace& ws) {
  using namespace kernels;
  ArithmeticPlan plan;
  ArithParams& p = plan.params;
  p.op = parse_arith_op(spec.arg<std::string>("op"));
  const TensorList& a = ws.input(0);
  const bool unary = p.op == ArithOp::kNeg;
  const bool has_b = ws.num_inputs() > 1;
  p.b_is_scalar = !has_b;  // unary operations read no second operand
  SLUICE_CHECK(unary || has_b || spec.has_arg("scalar"), InvalidArgument,
               "a binary operation needs a second input or a constant");
  p.ta = a.dtype();
  p.tb = has_b ? ws.input(1).dtype() : p.ta;
  DType operands;
  if (unary) {
    SLUICE_CHECK(p.ta != DType::kBool, InvalidArgument, "cannot negate boolean data");
    operands = p.ta;
  } else if (has_b) {
    operands = promote_types(p.ta, p.tb);
  } else {
    p.scalar = spec.arg<double>("scalar");
    p.scalar_left = spec.arg<bool>("scalar_left");
    operands = promote_with_scalar(p.ta, !spec.arg<bool>("scalar_is_int"));
  }
  ArithTypes t = arith_types(p.op, operands);
  p.compute = t.compute;
  p.result = t.result;

  const int n = ws.batch_size();
  plan.shapes.resize(n);
  plan.a_step.assign(n, 1);
  plan.b_step.assign(n, has_b ? 1 : 0);
  for (int i = 0; i < n; ++i) {
    const Shape& sa = a.shape(i);
    if (!has_b) {
      plan.shapes[i] = sa;
      continue;
    }
    const Shape& sb = ws.input(1).shape(i);
    if (sa == sb) {
      plan.shapes[i] = sa;
    } else if (volume(sb) == 1) {
      plan.shapes[i] = sa;
      plan.b_step[i] = 0;
    } else if (volume(sa) == 1) {
      plan.shapes[i] = sb;
      plan.a_step[i] = 0;
    } else {
      throw InvalidArgument(make_string("sample ", i, " has operand shapes ", shape_to_string(sa),
                                        " and ", shape_to_string(sb),
                                        "; they must match or one must have a single element"));
    }
  }
  return plan;
}

}  // namespace sluice
