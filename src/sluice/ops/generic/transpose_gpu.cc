// transpose on the GPU: one strided-copy launch per batch.

#include "sluice/ops/generic/transpose.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class TransposeGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const std::vector<kernels::StridedCopyDesc> descs = plan_transpose(spec_, in, out);
    int64_t max_n = 0;
    for (const auto& d : descs) max_n = std::max(max_n, kernels::strided_copy_volume(d));
    if (max_n == 0) return;
    kernels::strided_copy_gpu(upload_->upload(descs, ws.stream()), static_cast<int>(descs.size()),
                              max_n, dtype_size(in.dtype()), ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("transpose", OpDevice::kGPU, TransposeGpu);

}  // namespace
}  // namespace sluice
