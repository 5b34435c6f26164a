#pragma once
// What the reductions (reductions.sum, min, max, mean, mean_square, rms, std_dev, variance)
// share: the axes arguments, output shapes, types and layouts, and the operator classes (each
// reduction's file registers the CPU one, reduce_op_gpu.cc all the GPU ones). normalize reads its
// axes the same way.

#include <cstdint>
#include <optional>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/graph/op_schema.h"
#include "sluice/kernels/reduce/reduce.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {

// The arguments every reduction takes: `axes`, `axis_names`, `keep_dims`; `dtype` where
// `with_dtype`, and `ddof` plus the `mean` input for std_dev and variance (`with_mean`).
OpSchema reduce_schema(OpSchema s, bool with_dtype, bool with_mean);

// The axes named by `axes` (negative ones count from the back) or `axis_names` (looked up in
// `layout`), as a bit mask over `ndim` dimensions; all of them when neither is given. DALI's
// checks: the two arguments exclude each other, no axis twice, none out of range.
uint64_t reduced_axis_mask(const OpSpec& spec, const Layout& layout, int ndim);
// True when `axes` or `axis_names` was given empty (nothing is reduced).
bool empty_axes_given(const OpSpec& spec);

Shape reduced_shape(const Shape& in, uint64_t mask, bool keep_dims);
Layout reduced_layout(const Layout& in, uint64_t mask, bool keep_dims);

// The output type of `op` for input type `in` and the `dtype` argument, if given (DALI's type
// maps); throws InvalidArgument naming the types for a pair DALI refuses.
DType reduce_output_type(kernels::ReduceOp op, DType in, std::optional<DType> requested);

// One batch's reduction: output shapes, layout and type, a geometry per sample.
struct ReducePlan {
  std::vector<Shape> out_shapes;
  std::vector<kernels::ReduceGeometry> geometry;
  Layout layout;
  DType out_type = DType::kFloat32;
  bool zero_fill = false;  // std_dev / variance with empty axes: DALI gives zeros
  int ddof = 0;
};
// Checks the `mean` input of std_dev / variance (input 1) against the plan, too.
ReducePlan plan_reduce(kernels::ReduceOp op, const OpSpec& spec, const Workspace& ws);

template <kernels::ReduceOp Op>
class ReduceCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override;
};

// The same results in one launch (CUDA builds only); floating-point sums in another order.
template <kernels::ReduceOp Op>
class ReduceGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override;
};

}  // namespace sluice
