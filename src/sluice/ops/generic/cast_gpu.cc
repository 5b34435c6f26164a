// cast and cast_like on the GPU: one kernel launch per batch.

#include <algorithm>

#include "sluice/kernels/elementwise/elementwise_gpu.h"
#include "sluice/ops/generic/cast_target.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class CastGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const DType to = cast_target(spec_, ws);
    out.resize(in.shapes(), to);
    out.set_layout(in.layout());
    std::vector<kernels::ElementwiseSample> s(in.num_samples());
    int64_t max_n = 0;
    for (int i = 0; i < in.num_samples(); ++i) {
      const int64_t n = volume(in.shape(i));
      s[i] = {out.raw_sample(i), in.raw_sample(i), nullptr, n, 1, 0};
      max_n = std::max(max_n, n);
    }
    kernels::cast_gpu(upload_->upload(s, ws.stream()), in.num_samples(), max_n, to, in.dtype(),
                      ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("cast", OpDevice::kGPU, CastGpu);
SLUICE_REGISTER_OPERATOR("cast_like", OpDevice::kGPU, CastGpu);

}  // namespace
}  // namespace sluice
