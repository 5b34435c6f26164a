// bb_flip: mirrors bounding boxes (xywh or ltrb, relative coordinates) horizontally and/or
// vertically, per sample. The GPU class is in bb_flip_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/bbox/bbox.h"
#include "sluice/ops/bbox/bbox_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("bb_flip")
        .doc("Flips bounding boxes horizontally and/or vertically (mirror) in relative "
             "coordinates, [x, y, w, h] (`xywh`) or [left, top, right, bottom] (`ltrb`).")
        .num_inputs(1, 1)
        .input_doc("input", "Boxes: float, 4 values each (e.g. [N, 4]).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("ltrb", ArgType::kBool, false, "True for `ltrb` boxes, False for `xywh`.")
        .arg("horizontal", ArgType::kInt, int64_t{1}, "Flip the horizontal dimension.", true)
        .arg("vertical", ArgType::kInt, int64_t{0}, "Flip the vertical dimension.", true));

class BbFlipCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    boxes_out_like_in(ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const bool ltrb = spec_.arg<bool>("ltrb");
    ws.for_each_sample(
        [&](int i, int) {
          kernels::bb_flip_cpu({static_cast<const float*>(in.raw_sample(i)),
                                static_cast<float*>(out.raw_sample(i)), num_boxes(in, i),
                                ws.arg<int>("horizontal", i) != 0, ws.arg<int>("vertical", i) != 0},
                               ltrb);
        },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("bb_flip", OpDevice::kCPU, BbFlipCpu);

}  // namespace
}  // namespace sluice
