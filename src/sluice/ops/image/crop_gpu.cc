// crop on the GPU: one kernel launch per batch.

#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/crop_transform_gpu.h"

namespace sluice {
namespace {

class CropGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const int n = ws.batch_size();
    std::vector<ImageGeometry> geo(n);
    std::vector<CropWindow> win(n);
    std::vector<ImageTransform> tf(n);
    for (int i = 0; i < n; ++i) {
      geo[i] = image_geometry(in, i);
      auto w = fixed_window(ws, i, geo[i].height, geo[i].width);
      SLUICE_CHECK(w, InvalidArgument, "crop needs crop=(h, w) or crop_h and crop_w");
      win[i] = *w;
    }
    crop_transform_batch_gpu(ws, *upload_, geo, win, tf,
                             spec_.arg<std::vector<float>>("fill_values"));
  }
};

SLUICE_REGISTER_OPERATOR("crop", OpDevice::kGPU, CropGpu);

}  // namespace
}  // namespace sluice
