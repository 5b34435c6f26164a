#pragma once
// Broadcasting of the operands of element-wise arithmetic (numpy's rules, per sample, as DALI):
// shapes align at their last dimension, and each extent must equal the output's or be 1. The
// kernels see a sample as an output shape of at most kMaxArithDims dimensions, where adjacent
// dimensions that broadcast alike in every operand are merged, and one stride per operand and
// dimension (0 where the operand is broadcast).

#include <cstdint>
#include <span>
#include <string>

#include "sluice/core/shape.h"
#include "sluice/kernels/elementwise/arithmetic.h"

namespace sluice::kernels {

inline constexpr int kMaxArithDims = 6;  // DALI's limit of merged dimension groups

struct ArithOperandDesc {
  const void* data = nullptr;
  int64_t stride[kMaxArithDims] = {};  // elements per step of each output dimension
};

// One sample of an arithmetic operation, on the host or (pointers) on the device.
struct ArithSampleDesc {
  void* out = nullptr;
  int ndim = 1;
  int64_t shape[kMaxArithDims] = {1};
  ArithOperandDesc in[kMaxArity];
};

// The broadcast output shape of `shapes` (nullptr entries are scalars). Throws InvalidArgument
// with DALI's message naming `sample` when two shapes are incompatible.
Shape broadcast_shape(std::span<const Shape* const> shapes, int sample);

// Fills `desc` for operands `data` of shapes `shapes` (nullptr: a scalar) broadcast to `out_shape`.
// Throws InvalidArgument (DALI's message) when more than kMaxArithDims groups remain.
void describe_arith_sample(ArithSampleDesc& desc, void* out, const Shape& out_shape,
                           std::span<const void* const> data, std::span<const Shape* const> shapes);

}  // namespace sluice::kernels
