// The GPU half of warp_args.h: one warp launch per batch.

#include "sluice/kernels/geometry/warp_gpu.h"
#include "sluice/ops/image/warp_args.h"

namespace sluice {

void WarpOpGpu::run(Workspace& ws) {
  TensorList& out = ws.output(0);
  auto plans = warp_batch(ws, out, [&](auto& p) { plan(ws, p); });
  int64_t max_h = 0, max_w = 0;
  int channels = plans.empty() ? 0 : plans[0].channels;
  for (const auto& p : plans) {
    max_h = std::max(max_h, p.out_h);
    max_w = std::max(max_w, p.out_w);
    if (p.channels != channels) channels = 0;
  }
  kernels::warp_gpu(upload_->upload(plans, ws.stream()), static_cast<int>(plans.size()), max_h,
                    max_w, channels, ws.input(0).dtype(), out.dtype(), ws.stream());
}

}  // namespace sluice
