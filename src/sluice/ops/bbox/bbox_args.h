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

// Checks every sample's boxes and gives output 0 the input's shapes, type and layout (operators
// that move boxes).
inline void boxes_out_like_in(Workspace& ws) {
  const TensorList& in = ws.input(0);
  for (int i = 0; i < ws.batch_size(); ++i) num_boxes(in, i);
  TensorList& out = ws.output(0);
  out.resize(in.shapes(), in.dtype());
  out.set_layout(in.layout());
}

}  // namespace sluice
