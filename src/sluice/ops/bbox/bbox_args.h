#pragma once
// What the bounding-box operators share: the check that an input holds float boxes.

#include "sluice/exec/operator.h"

namespace sluice {

// The boxes of `sample` (4 floats each); refuses other types and a size not a multiple of 4.
inline int64_t num_boxes(const TensorList& in, int sample) {
  SLUICE_CHECK(in.dtype() == DType::kFloat32, InvalidArgument,
               "Bounding box in wrong format: boxes must be float, got ", dtype_name(in.dtype()));
  const int64_t n = volume(in.shape(sample));
  SLUICE_CHECK(n % 4 == 0, InvalidArgument, "Bounding box tensor size must be a multiple of 4, ",
               "sample ", sample, " has shape ", shape_to_string(in.shape(sample)));
  return n / 4;
}

}  // namespace sluice
