#pragma once
// What the transforms.* operators share: their common schema part and the operator that
// produces one affine matrix per sample (ndim x (ndim + 1) FLOAT, DALI's form) and combines it
// with an optional input matrix. Each operator's file defines its matrix.

#include <string_view>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/graph/op_schema.h"
#include "sluice/kernels/geometry/affine.h"

namespace sluice {

// One optional input (a transform to apply this one after) and reverse_order.
OpSchema transform_schema(OpSchema s);

class TransformOp : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override;

 protected:
  // The dimensionality of this batch's transforms; `input_ndim` is the input matrices' (0 when
  // there is no input).
  virtual int transform_ndim(const Workspace& ws, int input_ndim) const = 0;
  virtual kernels::AffineMatrix transform(const Workspace& ws, int sample, int ndim) const = 0;
};

// Whether argument `name` was given, as a constant or as an argument input.
bool has_transform_arg(const Workspace& ws, std::string_view name);

// Argument `name` of `sample` as `ndim` values: a single value is repeated. Throws
// InvalidArgument naming the argument otherwise.
std::vector<float> transform_vector_arg(const Workspace& ws, std::string_view name, int sample,
                                        int ndim);

// The number of values of argument `name` for sample 0.
int transform_arg_size(const Workspace& ws, std::string_view name);

}  // namespace sluice
