#pragma once
// CPU references of cast and arithmetic over flat element ranges.

#include <cstdint>

#include "sluice/kernels/elementwise/arithmetic.h"

namespace sluice::kernels {

// out[i] = convert(in[i]) for i in [0, n).
void cast_cpu(void* out, DType to, const void* in, DType from, int64_t n);

struct ArithParams {
  ArithOp op;
  DType compute, result;
  DType ta, tb;       // operand types (tb unused with a scalar)
  double scalar = 0;  // the constant operand
  bool b_is_scalar = false;
  bool scalar_left = false;  // constant op tensor
};

// out[i] = a[i * a_step] OP b[i * b_step] for i in [0, n). A step of 0 broadcasts one element.
void arithmetic_cpu(const ArithParams& p, void* out, const void* a, int64_t a_step, const void* b,
                    int64_t b_step, int64_t n);

}  // namespace sluice::kernels
