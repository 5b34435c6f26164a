// flip on the GPU: one kernel launch per batch.

#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/crop_transform_gpu.h"

namespace sluice {
namespace {

class FlipGpu : public GpuOperator {
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
      SLUICE_CHECK(ws.arg<int>("depthwise", i) == 0, NotImplemented, "depthwise flip");
      win[i] = {0, 0, geo[i].height, geo[i].width};
      tf[i] = {false, ws.arg<int>("horizontal", i) != 0, ws.arg<int>("vertical", i) != 0};
    }
    crop_transform_batch_gpu(ws, *upload_, geo, win, tf, {0.0f});
  }
};

SLUICE_REGISTER_OPERATOR("flip", OpDevice::kGPU, FlipGpu);

}  // namespace
}  // namespace sluice
