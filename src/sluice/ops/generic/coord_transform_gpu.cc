// coord_transform on the GPU: one launch per batch (coord_transform_gpu.h).

#include "sluice/kernels/geometry/coord_transform_gpu.h"
#include "sluice/ops/generic/coord_args.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class CoordTransformGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const CoordTransformBatch b = coord_transform_batch(ws);
    if (b.in_dim == 0) return;
    TensorList& out = ws.output(0);
    const int n = in.num_samples();
    std::vector<kernels::CoordTransformGpuSample> samples(n);
    int64_t max_points = 0;
    for (int i = 0; i < n; ++i) {
      samples[i] = {in.raw_sample(i), out.raw_sample(i), volume(in.shape(i)) / b.in_dim,
                    b.params[i]};
      max_points = std::max(max_points, samples[i].num_points);
    }
    kernels::coord_transform_gpu(upload_->upload(samples, ws.stream()), n, max_points, in.dtype(),
                                 b.out_type, ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("coord_transform", OpDevice::kGPU, CoordTransformGpu);

}  // namespace
}  // namespace sluice
