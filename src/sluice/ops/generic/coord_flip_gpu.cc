// coord_flip on the GPU: the coord_transform kernel with a diagonal map of +-1.

#include "sluice/kernels/geometry/coord_transform_gpu.h"
#include "sluice/ops/generic/coord_args.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {

namespace {

class CoordFlipGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const int ndim = coord_flip_dims(in);
    out.resize(in.shapes(), DType::kFloat32);
    out.set_layout(in.layout());
    if (ndim == 0) return;
    const int n = in.num_samples();
    std::vector<kernels::CoordTransformGpuSample> samples(n);
    int64_t max_points = 0;
    for (int i = 0; i < n; ++i) {
      samples[i] = {in.raw_sample(i), out.raw_sample(i), in.shape(i)[0],
                    coord_flip_params(ws, i, ndim)};
      max_points = std::max(max_points, samples[i].num_points);
    }
    kernels::coord_transform_gpu(upload_->upload(samples, ws.stream()), n, max_points,
                                 DType::kFloat32, DType::kFloat32, ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("coord_flip", OpDevice::kGPU, CoordFlipGpu);

}  // namespace
}  // namespace sluice
