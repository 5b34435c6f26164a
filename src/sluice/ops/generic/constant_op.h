#pragma once
// Shared by the CPU (constant.cc) and GPU (constant_gpu.cc) "constant" operators: the one sample
// every iteration repeats, built from the arguments once.

#include <cstdint>
#include <vector>

#include "sluice/core/dtype.h"
#include "sluice/core/shape.h"
#include "sluice/graph/op_spec.h"

namespace sluice {

struct ConstantSample {
  Shape shape;
  DType dtype = DType::kInt32;
  Layout layout;
  std::vector<uint8_t> bytes;  // volume(shape) values of dtype
};

// DALI's rules: `fdata` (float32 values) or `idata` (int64 values), broadcast from one value or
// one per element of `shape` (default: a 1-D list of the values); converted to `dtype` (default
// FLOAT for fdata, INT32 for idata) rounding half away from zero and saturating into integers.
ConstantSample constant_sample(const OpSpec& spec);

}  // namespace sluice
