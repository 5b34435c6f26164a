#pragma once
// What the colour operators share (brightness_contrast, brightness, contrast, hsv, hue,
// saturation, color_twist, color_space_conversion): the argument reading, which turns a batch
// into one kernel operation with per-sample parameters, and the operator classes (color_ops.cc,
// color_ops_gpu.cc): each operator's file registers the CPU class, color_ops_gpu.cc the GPU class
// for all of them.

#include <initializer_list>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/graph/op_schema.h"
#include "sluice/kernels/color/color_types.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {

struct ColorPlan {
  kernels::color::ColorOp op;
  DType in_type, out_type;
  std::vector<Shape> out_shapes;
  std::vector<kernels::color::ColorSample> samples;  // parameters and pixel counts; no pointers
};

// Reads the arguments of the operator `ws.spec().type` for the batch; throws InvalidArgument
// (with DALI's wording) for the layouts, types and channel counts DALI refuses.
ColorPlan plan_color(const Workspace& ws);

// Checks the input's layout (or, without one, its number of dimensions) against `allowed`, as
// DALI's schemas do.
void check_input_layout(const TensorList& in, std::initializer_list<const char*> allowed);

class ColorCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override;
};

// One launch per batch (CUDA builds only).
class ColorGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override;
};

}  // namespace sluice
