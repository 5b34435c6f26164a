// grid_mask: zeroes the pixels of each image under a rotated, shifted grid of squares. The GPU
// class is in grid_mask_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/grid_mask_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("grid_mask")
        .doc("Performs the GridMask augmentation (https://arxiv.org/abs/2001.04086): zeroes the "
             "pixels of each image under a grid of squares repeating in x and y with the same "
             "spacing, rotated about the origin and then shifted.")
        .num_inputs(1, 1)
        .input_doc("input", "HWC images (UINT8, INT16, INT32 or FLOAT).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("tile", ArgType::kInt, int64_t{100},
             "The length of a tile: a black square's width plus the spacing after it.", true)
        .arg("ratio", ArgType::kFloat, 0.5, "The black square's width over the tile's.", true)
        .arg("angle", ArgType::kFloat, 0.0, "Rotation of the grid, in radians.", true)
        .arg("shift_x", ArgType::kFloat, 0.0, "x of the shift, applied after the rotation.", true)
        .arg("shift_y", ArgType::kFloat, 0.0, "y of the shift, applied after the rotation.", true));

class GridMaskCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    check_grid_mask_input(in);
    out.resize(in.shapes(), in.dtype());
    out.set_layout(in.layout());
    const size_t elem = dtype_size(in.dtype());
    ws.for_each_sample(
        [&](int i, int) { kernels::grid_mask_cpu(grid_mask_sample(ws, in, out, i), elem); },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("grid_mask", OpDevice::kCPU, GridMaskCpu);

}  // namespace
}  // namespace sluice
