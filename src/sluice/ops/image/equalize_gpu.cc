// equalize on the GPU: the CPU class's plan, the channels' histograms in a buffer the operator
// keeps, two launches per batch.

#include <cstdint>

#include "sluice/memory/buffer.h"
#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/equalize.h"

namespace sluice {
namespace {

class EqualizeGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    hists_ = Buffer(MemoryKind::kDevice, ctx.device_id);
  }

  void run(Workspace& ws) override {
    const EqualizePlan plan = plan_equalize(ws.input(0), ws.output(0));
    const int n = static_cast<int>(plan.channels.size());
    if (n == 0 || plan.max_pixels == 0) return;
    SLUICE_CHECK(plan.max_pixels < (int64_t{1} << 32), InvalidArgument, "equalize: an image of ",
                 plan.max_pixels, " pixels is too large (2^32)");
    hists_.set_stream(ws.stream());
    hists_.resize(sizeof(uint32_t) * kernels::kEqualizeBins * n);
    kernels::equalize_gpu(upload_->upload(plan.channels, ws.stream()), n, plan.max_pixels,
                          static_cast<uint32_t*>(hists_.data()), ws.stream());
  }

 private:
  Buffer hists_;
};

SLUICE_REGISTER_OPERATOR("equalize", OpDevice::kGPU, EqualizeGpu);

}  // namespace
}  // namespace sluice
