// flip: reverses the horizontal, vertical and / or depth dimension of each image, volume or
// sequence, per sample. 2-D images go through the crop kernel, volumes and sequences through a
// strided copy (flip_args.h). The GPU class is in flip_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/crop/crop_cpu.h"
#include "sluice/ops/image/crop_args.h"
#include "sluice/ops/image/flip_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("flip")
        .doc("Flips selected dimensions (horizontal, vertical, depthwise) of images, volumes and "
             "sequences.")
        .num_inputs(1, 1)
        .input_doc("input",
                   "Images (HWC, CHW), volumes (DHWC, CDHW) or sequences of either (FHWC, FCHW, "
                   "FDHWC, FCDHW); without a layout, 3, 4 and 5 dimensions are HWC, FHWC and "
                   "FDHWC. Any type but bool.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("horizontal", ArgType::kInt, int64_t{1}, "Flip the horizontal dimension (W).", true)
        .arg("vertical", ArgType::kInt, int64_t{0}, "Flip the vertical dimension (H).", true)
        .arg("depthwise", ArgType::kInt, int64_t{0},
             "Flip the depth dimension (D) of volumes; no effect on images.", true));

class FlipCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const FlipAxes axes = flip_axes(in);
    out.resize(in.shapes(), in.dtype());
    out.set_layout(in.layout());
    if (!flip_as_image(in)) {
      ws.for_each_sample(
          [&](int i, int) {
            kernels::strided_copy_cpu(
                flip_copy_desc(in, out, i, axes, ws.arg<int>("depthwise", i) != 0,
                               ws.arg<int>("vertical", i) != 0, ws.arg<int>("horizontal", i) != 0),
                dtype_size(in.dtype()));
          },
          inline_below(in));
      return;
    }
    crop_type_dispatch(in.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      ws.for_each_sample(
          [&](int i, int) {
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
