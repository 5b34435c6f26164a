// flip: mirrors each image (HWC or CHW) horizontally and/or vertically, per sample. The GPU class
// is in flip_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/crop/crop_cpu.h"
#include "sluice/ops/image/crop_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(OpSchema("flip")
                           .doc("Flips each image horizontally and/or vertically.")
                           .num_inputs(1, 1)
                           .input_doc("input", "Images (HWC or CHW).")
                           .devices({OpDevice::kCPU, OpDevice::kGPU})
                           .arg("horizontal", ArgType::kInt, int64_t{1}, "Flip left-right.", true)
                           .arg("vertical", ArgType::kInt, int64_t{0}, "Flip upside down.", true)
                           .arg("depthwise", ArgType::kInt, int64_t{0},
                                "Volumetric flip; only 0 is supported.", true));

class FlipCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), in.dtype());
    out.set_layout(in.layout());
    crop_type_dispatch(in.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      ws.for_each_sample(
          [&](int i, int) {
            SLUICE_CHECK(ws.arg<int>("depthwise", i) == 0, NotImplemented, "depthwise flip");
            ImageGeometry g = image_geometry(in, i);
            flip_cpu<T>(image_view<const T>(in, i, g), image_view<T>(out, i, g),
                        ws.arg<int>("horizontal", i) != 0, ws.arg<int>("vertical", i) != 0);
          },
          inline_below(in));
    });
  }
};

SLUICE_REGISTER_OPERATOR("flip", OpDevice::kCPU, FlipCpu);

}  // namespace
}  // namespace sluice
