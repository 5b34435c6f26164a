#pragma once
// Shared argument handling of the "_arithmetic" operator (CPU in arithmetic.cc, GPU in
// arithmetic_gpu.cc): operand types, promotion and per-sample shapes with broadcasting of
// single-element samples.

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/elementwise/elementwise_cpu.h"

namespace sluice {

struct ArithmeticPlan {
  kernels::ArithParams params;
  std::vector<Shape> shapes;            // output shape per sample
  std::vector<int64_t> a_step, b_step;  // 1, or 0 to broadcast a one-element operand
};

ArithmeticPlan plan_arithmetic(const OpSpec& spec, const Workspace& ws);

}  // namespace sluice
