// The colour operators' GPU class (color_ops.h), registered here for all of them: the CPU class's
// plan, one launch per batch.

#include <algorithm>

#include "sluice/kernels/color/color_gpu.h"
#include "sluice/ops/image/color_ops.h"

namespace sluice {

void ColorGpu::run(Workspace& ws) {
  ColorPlan plan = plan_color(ws);
  const TensorList& in = ws.input(0);
  TensorList& out = ws.output(0);
  out.resize(plan.out_shapes, plan.out_type);
  out.set_layout(in.layout());
  int64_t max_pixels = 0;
  for (int i = 0; i < in.num_samples(); ++i) {
    plan.samples[i].in = in.raw_sample(i);
    plan.samples[i].out = out.raw_sample(i);
    max_pixels = std::max(max_pixels, plan.samples[i].pixels);
  }
  const auto* dev = upload_->upload(plan.samples, ws.stream());
  kernels::color::color_gpu(dev, in.num_samples(), max_pixels, plan.op, plan.in_type, plan.out_type,
                            ws.stream());
}

SLUICE_REGISTER_OPERATOR("brightness", OpDevice::kGPU, ColorGpu);
SLUICE_REGISTER_OPERATOR("contrast", OpDevice::kGPU, ColorGpu);
SLUICE_REGISTER_OPERATOR("brightness_contrast", OpDevice::kGPU, ColorGpu);
SLUICE_REGISTER_OPERATOR("hue", OpDevice::kGPU, ColorGpu);
SLUICE_REGISTER_OPERATOR("hsv", OpDevice::kGPU, ColorGpu);
SLUICE_REGISTER_OPERATOR("saturation", OpDevice::kGPU, ColorGpu);
SLUICE_REGISTER_OPERATOR("color_twist", OpDevice::kGPU, ColorGpu);
SLUICE_REGISTER_OPERATOR("color_space_conversion", OpDevice::kGPU, ColorGpu);

}  // namespace sluice
