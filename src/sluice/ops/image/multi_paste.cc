// multi_paste: pastes regions of input images into zeroed canvases, later regions over earlier
// ones. The GPU class is in multi_paste_gpu.cc, the argument handling in multi_paste_args.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/multi_paste_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

const char* const kRegionDoc =
    " A per-sample 2-D tensor of shape (number of regions, 2) giving (y, x) per region, or a "
    "flat constant list of those values.";

SLUICE_REGISTER_SCHEMA(
    OpSchema("multi_paste")
        .doc("Pastes regions of images into each output canvas (zeroed first), later regions "
             "over earlier ones. With `in_ids`, output i takes the regions from the samples "
             "`in_ids[i]` of its one input; without, it takes one region from sample i of each "
             "input. Can also change the type.")
        .num_inputs(1, 64)
        .input_doc("images", "HWC images; without `in_ids`, each input gives one region.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .optional_arg("in_ids", ArgType::kIntList,
                      "Indices of the samples to paste from (the operator then takes exactly "
                      "one input).",
                      true)
        .optional_arg("in_anchors", ArgType::kIntList,
                      std::string("Top-left corners of the regions in their sources (default: "
                                  "zeros).") +
                          kRegionDoc,
                      true)
        .optional_arg("in_anchors_rel", ArgType::kFloatList,
                      std::string("`in_anchors` relative to the source's extent (0 to 1; "
                                  "rounded down).") +
                          kRegionDoc,
                      true)
        .optional_arg("shapes", ArgType::kIntList,
                      std::string("Shapes of the regions (default: from the anchor to the end "
                                  "of the source).") +
                          kRegionDoc,
                      true)
        .optional_arg("shapes_rel", ArgType::kFloatList,
                      std::string("`shapes` relative to the source's extent (0 to 1; rounded "
                                  "up).") +
                          kRegionDoc,
                      true)
        .optional_arg("out_anchors", ArgType::kIntList,
                      std::string("Top-left corners of the regions in the canvas (default: "
                                  "zeros).") +
                          kRegionDoc,
                      true)
        .optional_arg("out_anchors_rel", ArgType::kFloatList,
                      std::string("`out_anchors` relative to the canvas (0 to 1; rounded "
                                  "down).") +
                          kRegionDoc,
                      true)
        .optional_arg("output_size", ArgType::kIntList,
                      "The canvas (H, W); may be omitted when all inputs have the same shape, "
                      "which the canvas then takes.",
                      true)
        .optional_arg("dtype", ArgType::kDType,
                      "Output type (UINT8, INT16, INT32 or FLOAT; default: the input's). "
                      "Floating values round half away from zero and saturate."));

class MultiPasteCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    MultiPastePlan plan = plan_multi_paste(ws);
    TensorList& out = ws.output(0);
    out.resize(plan.out_shapes, plan.out_type);
    out.set_layout(ws.input(0).layout());
    ws.for_each_sample(
        [&](int i, int) {
          kernels::MultiPasteSample s = plan.samples[i];
          s.out = out.raw_sample(i);
          kernels::multi_paste_cpu(s, plan.regions.data(), plan.out_type, plan.in_type);
        },
        inline_below(out));
  }
};

SLUICE_REGISTER_OPERATOR("multi_paste", OpDevice::kCPU, MultiPasteCpu);

}  // namespace
}  // namespace sluice
