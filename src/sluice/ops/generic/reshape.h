#pragma once
// Shared by "reshape" (reshape.cc), "reinterpret" (reinterpret.cc), "squeeze", "expand_dims" and
// "_subscript_dim_check": one class per operator for both devices, since the output views the
// input's memory.

#include <vector>

#include "sluice/exec/operator.h"

namespace sluice {

// Makes `out` view `in`'s memory with new shapes and type (same size in bytes per sample).
void view_as(const TensorList& in, TensorList& out, std::vector<Shape> shapes, DType type);

class ReshapeOp : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override;
  void run(Workspace& ws) override;

 private:
  Shape sample_shape(const Workspace& ws, const TensorList* shape_in, int i, size_t out_elem) const;
  Layout output_layout(const TensorList& in, int out_ndim) const;

  DType out_type_ = DType::kUInt8;
  bool retype_ = false;  // reinterpret with `dtype`
};

}  // namespace sluice
