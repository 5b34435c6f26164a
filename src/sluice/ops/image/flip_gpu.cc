// flip on the GPU: one kernel launch per batch (the crop kernel for 2-D images, a strided copy
// for volumes and sequences).

#include <algorithm>

#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/crop_transform_gpu.h"
#include "sluice/ops/image/flip_args.h"

namespace sluice {
namespace {

class FlipGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const int n = ws.batch_size();
    const FlipAxes axes = flip_axes(in);
    if (!flip_as_image(in)) {
      TensorList& out = ws.output(0);
      out.resize(in.shapes(), in.dtype());
      out.set_layout(in.layout());
      std::vector<kernels::StridedCopyDesc> descs(n);
      int64_t max_n = 0;
      for (int i = 0; i < n; ++i) {
        descs[i] =
            flip_copy_desc(in, out, i, axes, ws.arg<int>("depthwise", i) != 0,
                           ws.arg<int>("vertical", i) != 0, ws.arg<int>("horizontal", i) != 0);
        max_n = std::max(max_n, kernels::strided_copy_volume(descs[i]));
      }
      if (max_n == 0) return;
      kernels::strided_copy_gpu(upload_->upload(descs, ws.stream()), n, max_n,
                                dtype_size(in.dtype()), ws.stream());
      return;
    }
    std::vector<ImageGeometry> geo(n);
    std::vector<CropWindow> win(n);
    std::vector<ImageTransform> tf(n);
    for (int i = 0; i < n; ++i) {
      geo[i] = image_geometry(in, i);
      win[i] = {0, 0, geo[i].height, geo[i].width};
      tf[i] = {false, ws.arg<int>("horizontal", i) != 0, ws.arg<int>("vertical", i) != 0};
    }
    crop_transform_batch_gpu(ws, *upload_, geo, win, tf, {0.0f});
  }
};

SLUICE_REGISTER_OPERATOR("flip", OpDevice::kGPU, FlipGpu);

}  // namespace
}  // namespace sluice
