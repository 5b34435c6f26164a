#pragma once
// What warp_affine and rotate share, on the CPU and the GPU: the common arguments (interp_type,
// fill_value, dtype, size), the output size and type, and the operator classes that run the
// warp kernels (kernels/geometry/warp.h) once each sample's matrix and size are known.

#include <array>
#include <functional>
#include <optional>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/graph/op_schema.h"
#include "sluice/kernels/geometry/warp.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {

// interp_type (NN or LINEAR), fill_value, dtype and size.
OpSchema warp_args(OpSchema s);

// The HWC image's height, width and channels; throws for other layouts and volumes.
std::array<int64_t, 3> warp_input_extents(const TensorList& in, int sample);

// The explicit output size (height, width) of `sample`, if `size` was given.
std::optional<std::array<int64_t, 2>> warp_explicit_size(const Workspace& ws, int sample);

// The parts of each sample's descriptor that come from the common arguments.
kernels::WarpSample warp_sample_base(const OpSpec& spec);
DType warp_output_type(const OpSpec& spec, DType input);

// Plans the batch (input extents and common arguments, then `plan`: matrices and output sizes),
// sizes `out` and returns the descriptors with their pointers.
std::vector<kernels::WarpSample> warp_batch(
    const Workspace& ws, TensorList& out,
    const std::function<void(std::vector<kernels::WarpSample>&)>& plan);

// Plans the batch, then allocates and warps. Derived classes plan.
class WarpOpCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override;

 protected:
  // Fills `plans` (one per sample, in_h/in_w/channels already set) with matrices and out sizes.
  virtual void plan(const Workspace& ws, std::vector<kernels::WarpSample>& plans) = 0;
};

class WarpOpGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override;

 protected:
  virtual void plan(const Workspace& ws, std::vector<kernels::WarpSample>& plans) = 0;
};

// Each operator's plan (warp_affine.cc, rotate.cc), shared by its CPU and GPU classes.
void plan_warp_affine(const Workspace& ws, std::vector<kernels::WarpSample>& plans);
void plan_rotate(const Workspace& ws, std::vector<kernels::WarpSample>& plans);

}  // namespace sluice
