// pad on the GPU: one slice-kernel launch for the batch, the descriptors and each sample's fill
// value in one upload.

#include <cstring>

#include "sluice/ops/generic/pad.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class PadGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const PadPlan plan = plan_pad(spec_, ws);
    TensorList& out = ws.output(0);
    out.resize(plan.out_shapes, in.dtype());
    out.set_layout(in.layout());
    const int n = out.num_samples();
    int64_t max_n = 0;
    for (int i = 0; i < n; ++i) max_n = std::max(max_n, volume(plan.out_shapes[i]));
    if (max_n == 0) return;
    const size_t es = dtype_size(in.dtype()), desc_bytes = n * sizeof(kernels::SliceDesc);
    auto pages = upload_->begin(desc_bytes + plan.fill.size(), ws.stream());
    auto* pinned = static_cast<char*>(pages.pinned);
    auto* device = static_cast<char*>(pages.device);
    for (int i = 0; i < n; ++i) {
      const kernels::SliceDesc d = pad_desc(plan, in, out, i, device + desc_bytes + i * es);
      std::memcpy(pinned + i * sizeof(d), &d, sizeof(d));
    }
    std::memcpy(pinned + desc_bytes, plan.fill.data(), plan.fill.size());
    cuda::memcpy_async(device, pinned, desc_bytes + plan.fill.size(), ws.stream());
    upload_->end(ws.stream());
    kernels::slice_gpu(reinterpret_cast<const kernels::SliceDesc*>(device), n, max_n, in.dtype(),
                       in.dtype(), kernels::SliceBorder::kConstant, ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("pad", OpDevice::kGPU, PadGpu);

}  // namespace
}  // namespace sluice
