// coord_flip: reflects coordinates (x, y, z in `layout` order) about a center, per sample. The
// GPU class is in coord_flip_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/coord_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("coord_flip")
        .doc("Transforms vectors or points by flipping (reflecting) their coordinates with "
             "respect to a given center.")
        .num_inputs(1, 1)
        .input_doc("input", "FLOAT coordinates, shape (N, ndim) with ndim <= 3.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("layout", ArgType::kString, std::string(""),
             "Order of the coordinates (\"x\", \"xy\", \"xyz\", \"yx\", ...; default by ndim).")
        .arg("flip_x", ArgType::kInt, int64_t{1}, "Flip the horizontal (x) coordinate.", true)
        .arg("flip_y", ArgType::kInt, int64_t{0}, "Flip the vertical (y) coordinate.", true)
        .arg("flip_z", ArgType::kInt, int64_t{0}, "Flip the depthwise (z) coordinate.", true)
        .arg("center_x", ArgType::kFloat, 0.5, "Flip center in the horizontal axis.", true)
        .arg("center_y", ArgType::kFloat, 0.5, "Flip center in the vertical axis.", true)
        .arg("center_z", ArgType::kFloat, 0.5, "Flip center in the depthwise axis.", true));

class CoordFlipCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const int ndim = coord_flip_dims(in);
    out.resize(in.shapes(), DType::kFloat32);
    out.set_layout(in.layout());
    if (ndim == 0) return;
    ws.for_each_sample(
        [&](int i, int) {
          kernels::coord_transform_cpu(in.raw_sample(i), DType::kFloat32, out.raw_sample(i),
                                       DType::kFloat32, in.shape(i)[0],
                                       coord_flip_params(ws, i, ndim));
        },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("coord_flip", OpDevice::kCPU, CoordFlipCpu);

}  // namespace
}  // namespace sluice
