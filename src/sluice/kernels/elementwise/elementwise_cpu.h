#pragma once
// CPU kernels of cast and arithmetic.

#include <cstdint>

#include "sluice/kernels/elementwise/arithmetic.h"
#include "sluice/kernels/elementwise/broadcast.h"

namespace sluice::kernels {

// out[i] = convert(in[i]) for i in [0, n).
void cast_cpu(void* out, DType to, const void* in, DType from, int64_t n);

// One arithmetic operation over a batch: the operation, its types (arith_types()) and the
// operand types. A constant operand is given by value (its bits in its type, in `constant`)
// with its bit set in `constant_mask`: the GPU kernel reads it from here, the CPU kernel from
// wherever the sample's operand points (the operator points it here).
struct ArithParams {
  ArithOp op = ArithOp::kAdd;
  int arity = 2;
  ArithTypes types{};
  DType operand[kMaxArity] = {};
  uint64_t constant[kMaxArity] = {};
  uint8_t constant_mask = 0;
};

// Computes one sample. Integer // and % by zero throw InvalidArgument ("Integer division by
// zero.", DALI's message) before anything of the tile is written.
void arithmetic_cpu(const ArithParams& p, const ArithSampleDesc& s);

}  // namespace sluice::kernels
