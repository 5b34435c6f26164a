// bb_flip on the GPU: one launch per batch, one thread per box; the CPU class's bits.

#include <algorithm>
#include <vector>

#include "sluice/kernels/bbox/bbox.h"
#include "sluice/ops/bbox/bbox_args.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class BbFlipGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    boxes_out_like_in(ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const int n = ws.batch_size();
    std::vector<kernels::BoxFlipSample> s(n);
    int64_t max_boxes = 0;
    for (int i = 0; i < n; ++i) {
      s[i] = {static_cast<const float*>(in.raw_sample(i)), static_cast<float*>(out.raw_sample(i)),
              num_boxes(in, i), ws.arg<int>("horizontal", i) != 0, ws.arg<int>("vertical", i) != 0};
      max_boxes = std::max(max_boxes, s[i].num_boxes);
    }
    kernels::bb_flip_gpu(upload_->upload(s, ws.stream()), n, max_boxes, spec_.arg<bool>("ltrb"),
                         ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("bb_flip", OpDevice::kGPU, BbFlipGpu);

}  // namespace
}  // namespace sluice
