// warp_affine on the GPU: one launch per batch; a matrix input stays on the device.

#include "sluice/ops/image/warp_args.h"

namespace sluice {
namespace {

class WarpAffineGpu : public WarpOpGpu {
 public:
  using WarpOpGpu::WarpOpGpu;

 protected:
  void plan(const Workspace& ws, std::vector<kernels::WarpSample>& plans) override {
    plan_warp_affine(ws, plans);
  }
};

SLUICE_REGISTER_OPERATOR("warp_affine", OpDevice::kGPU, WarpAffineGpu);

}  // namespace
}  // namespace sluice
