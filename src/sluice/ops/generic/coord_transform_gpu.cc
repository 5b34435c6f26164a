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
    TensorList& out = ws.output(0);
    const DType out_type = parse_dtype(spec_.arg<std::string>("dtype"));
    const int in_dim = coord_point_dims(in, "CoordTransform");
    const int n = in.num_samples();
    std::vector<kernels::CoordTransformGpuSample> samples(n);
    int out_dim = in_dim;
    for (int i = 0; i < n && in_dim > 0; ++i) {
      samples[i].params = coord_transform_params(ws, i, in_dim);
      SLUICE_CHECK(i == 0 || samples[i].params.out_dim == out_dim, InvalidArgument,
                   "Matrices for all samples in the batch must have the same shape.");
      out_dim = samples[i].params.out_dim;
    }
    out.resize(coord_output_shapes(in, out_dim), out_type);
    out.set_layout(in.layout());
    if (in_dim == 0) return;
    int64_t max_points = 0;
    for (int i = 0; i < n; ++i) {
      samples[i].in = in.raw_sample(i);
      samples[i].out = out.raw_sample(i);
      samples[i].num_points = volume(in.shape(i)) / in_dim;
      max_points = std::max(max_points, samples[i].num_points);
    }
    kernels::coord_transform_gpu(upload_->upload(samples, ws.stream()), n, max_points, in.dtype(),
                                 out_type, ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("coord_transform", OpDevice::kGPU, CoordTransformGpu);

}  // namespace
}  // namespace sluice
