// rotate on the GPU: the warp kernel, one launch per batch.

#include "sluice/ops/image/warp_args.h"

namespace sluice {
namespace {

class RotateGpu : public WarpOpGpu {
 public:
  using WarpOpGpu::WarpOpGpu;

 protected:
  void plan(const Workspace& ws, std::vector<kernels::WarpSample>& plans) override {
    plan_rotate(ws, plans);
  }
};

SLUICE_REGISTER_OPERATOR("rotate", OpDevice::kGPU, RotateGpu);

}  // namespace
}  // namespace sluice
