// box_encoder on the GPU: one block per sample; the CPU class's matches.

#include <memory>
#include <vector>

#include "sluice/ops/bbox/box_encoder.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class BoxEncoderGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    anchor_upload_ = std::make_unique<ParamUpload>(ctx.device_id);
    params_ = box_encoder_params(spec_, anchors_);
  }
  void run(Workspace& ws) override {
    const std::vector<int> num_boxes = box_encoder_outputs(ws, params_.num_anchors);
    const int n = ws.batch_size();
    std::vector<kernels::BoxEncoderSample> s(n);
    for (int i = 0; i < n; ++i) {
      s[i] = {static_cast<const float*>(ws.input(0).raw_sample(i)),
              static_cast<const int32_t*>(ws.input(1).raw_sample(i)), num_boxes[i],
              static_cast<float*>(ws.output(0).raw_sample(i)),
              static_cast<int32_t*>(ws.output(1).raw_sample(i))};
    }
    kernels::BoxEncoderParams p = params_;
    p.anchors = anchors_.empty() ? nullptr : anchor_upload_->upload(anchors_, ws.stream());
    kernels::box_encoder_gpu(p, upload_->upload(s, ws.stream()), n, ws.stream());
  }

 private:
  std::unique_ptr<ParamUpload> anchor_upload_;
  std::vector<float> anchors_;
  kernels::BoxEncoderParams params_{};
};

SLUICE_REGISTER_OPERATOR("box_encoder", OpDevice::kGPU, BoxEncoderGpu);

}  // namespace
}  // namespace sluice
