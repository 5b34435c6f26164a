// bbox_paste: moves boxes to where they lie after their image is pasted on a larger canvas (the
// companion of paste). CPU only, as in DALI.

#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/bbox/bbox.h"
#include "sluice/ops/bbox/bbox_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("bbox_paste")
        .doc("Transforms boxes so that they stay on the same content after the image is pasted on "
             "a canvas `ratio` times larger at (`paste_x`, `paste_y`).")
        .num_inputs(1, 1)
        .input_doc("input", "Boxes: float, 4 values each (e.g. [N, 4]).")
        .required_arg("ratio", ArgType::kFloat, "Ratio of the canvas size to the image size.",
                      /*per_sample=*/true)
        .arg("ltrb", ArgType::kBool, false, "True for `ltrb` boxes, False for `xywh`.")
        .arg("paste_x", ArgType::kFloat, 0.5,
             "Horizontal position of the paste, 0 (left) to 1 (right).", /*per_sample=*/true)
        .arg("paste_y", ArgType::kFloat, 0.5, "Vertical position of the paste, 0 (top) to 1.",
             /*per_sample=*/true));

class BboxPasteCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    boxes_out_like_in(ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const bool ltrb = spec_.arg<bool>("ltrb");
    ws.for_each_sample(
        [&](int i, int) {
          kernels::bbox_paste_cpu(static_cast<const float*>(in.raw_sample(i)),
                                  static_cast<float*>(out.raw_sample(i)), num_boxes(in, i), ltrb,
                                  ws.arg<float>("ratio", i), ws.arg<float>("paste_x", i),
                                  ws.arg<float>("paste_y", i));
        },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("bbox_paste", OpDevice::kCPU, BboxPasteCpu);

}  // namespace
}  // namespace sluice
