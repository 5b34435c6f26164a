// crop: cuts a window out of each image (HWC or CHW), padding or trimming where it reaches
// outside. The GPU class is in crop_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/crop/crop_cpu.h"
#include "sluice/ops/image/crop_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(crop_window_args(OpSchema("crop"))
                           .doc("Cuts a window of size crop=(h, w) at (crop_pos_y, crop_pos_x) "
                                "out of each HWC or CHW image.")
                           .num_inputs(1, 1)
                           .input_doc("input", "Images (HWC or CHW).")
                           .devices({OpDevice::kCPU, OpDevice::kGPU}));

class CropCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const int n = ws.batch_size();
    std::vector<ImageGeometry> geo(n);
    std::vector<CropWindow> win(n);
    std::vector<Shape> shapes(n);
    for (int i = 0; i < n; ++i) {
      geo[i] = image_geometry(in, i);
      auto w = fixed_window(ws, i, geo[i].height, geo[i].width);
      SLUICE_CHECK(w, InvalidArgument, "crop needs crop=(h, w) or crop_h and crop_w");
      win[i] = *w;
      shapes[i] = image_shape(w->h, w->w, geo[i].channels, geo[i].layout);
    }
    out.resize(shapes, in.dtype());
    out.set_layout(in.layout());
    auto fill = spec_.arg<std::vector<float>>("fill_values");
    crop_type_dispatch(in.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      ws.for_each_sample(
          [&](int i, int) {
            ImageGeometry og{win[i].h, win[i].w, geo[i].channels, geo[i].layout};
            crop_cpu<T>(image_view<const T>(in, i, geo[i]), image_view<T>(out, i, og), win[i],
                        fill);
          },
          inline_below(in));
    });
  }
};

SLUICE_REGISTER_OPERATOR("crop", OpDevice::kCPU, CropCpu);

}  // namespace
}  // namespace sluice
