#pragma once
// What coord_transform and coord_flip share between their CPU and GPU classes: the per-sample
// affine map of the points (kernels/geometry/coord_transform.h) and the output shapes.

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/geometry/coord_transform.h"

namespace sluice {

// The points' dimensionality (the last extent, the same in every non-empty sample; 0 when all
// are empty). Throws InvalidArgument for inputs of fewer than 2 dimensions.
int coord_point_dims(const TensorList& in, const char* op);

// coord_transform's map for `sample` from M / T / MT (the MTTransformAttr rules of DALI).
kernels::CoordTransformParams coord_transform_params(const Workspace& ws, int sample, int in_dim);

// coord_transform's batch: the output type and the points' dimensions in and out, a map a sample
// (none read when all samples are empty).
struct CoordTransformBatch {
  DType out_type = DType::kFloat32;
  int in_dim = 0, out_dim = 0;
  std::vector<kernels::CoordTransformParams> params;
};
// Reads the batch's arguments (every sample's matrix of one shape) and sizes output 0.
CoordTransformBatch coord_transform_batch(Workspace& ws);

// Checks coord_flip's input (FLOAT, (N, ndim), ndim <= 3); returns ndim.
int coord_flip_dims(const TensorList& in);

// coord_flip's map for `sample`: flipped coordinates become 2 * center - v.
kernels::CoordTransformParams coord_flip_params(const Workspace& ws, int sample, int ndim);

// The input's shapes with the last extent replaced by `out_dim`.
std::vector<Shape> coord_output_shapes(const TensorList& in, int out_dim);

}  // namespace sluice
