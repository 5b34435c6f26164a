#pragma once
// Shared argument handling of the "_arithmetic" operator (CPU in arithmetic.cc, GPU in
// arithmetic_gpu.cc): the operands (inputs and typed constants), their types, the broadcast
// output shapes and the layout, as DALI's arithmetic operator defines them.

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/elementwise/elementwise_cpu.h"

namespace sluice {

// What the arguments say, parsed once: the operation and where each operand comes from.
struct ArithmeticOperands {
  kernels::ArithOp op = kernels::ArithOp::kAdd;
  int arity = 0;
  int input_of[kernels::kMaxArity] = {-1, -1, -1};  // input index, or -1 for a constant
  DType constant_type[kernels::kMaxArity] = {};
  uint64_t constant_bits[kernels::kMaxArity] = {};  // the constant's value in its type
};
ArithmeticOperands parse_arithmetic(const OpSpec& spec);

// One batch: the kernel parameters, the output shapes and the output layout.
struct ArithmeticPlan {
  kernels::ArithParams params;
  std::vector<Shape> shapes;
  Layout layout;
};
ArithmeticPlan plan_arithmetic(const ArithmeticOperands& ops, const Workspace& ws);

// Sample i's descriptor, pointing at the inputs' samples (host or device pointers, as the inputs
// are) and, for constants, at plan.params.
kernels::ArithSampleDesc arithmetic_sample(const ArithmeticOperands& ops,
                                           const ArithmeticPlan& plan, const Workspace& ws,
                                           void* out, int i);

}  // namespace sluice
