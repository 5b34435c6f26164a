#pragma once
// Shared by the CPU (shapes.cc) and GPU (shapes_gpu.cc) "shapes" operators.

#include <vector>

#include "sluice/graph/op_spec.h"
#include "sluice/memory/tensor_list.h"

namespace sluice {

// The output type: `dtype`, or the legacy `type` (DALI's rules: int32, uint32, int64, float or
// double).
DType shapes_dtype(const OpSpec& spec);

// Writes the shape of every sample of `in` as `dtype` values into `out` (num_samples * ndim
// values, sample after sample).
void write_shapes(const TensorList& in, DType dtype, void* out);

}  // namespace sluice
