// resize, random_resized_crop and resize_crop_mirror on the GPU: batched separable resampling, one
// launch per pass.

#include "sluice/kernels/resize/resize_gpu.h"
#include "sluice/ops/image/resize.h"

namespace sluice {

void ResizeGpu::setup(const OpContext& ctx) {
  filters_ = resize_filters(spec_);
  GpuOperator::setup(ctx);
}

void ResizeGpu::run(Workspace& ws) {
  const TensorList& in = ws.input(0);
  TensorList& out = ws.output(0);
  SLUICE_CHECK(in.dtype() == DType::kUInt8, InvalidArgument, "GPU resize takes UINT8 images, got ",
               dtype_name(in.dtype()));
  const int n = ws.batch_size();
  const DType out_type = resize_output_type(spec_, in.dtype());
  std::vector<kernels::ResizeGpuSample> samples(n);
  std::vector<Shape> shapes(n);
  int channels = 0;
  for (int i = 0; i < n; ++i) {
    const Shape& s = in.shape(i);
    SLUICE_CHECK(s.size() == 3 && (in.layout().empty() || in.layout() == "HWC"), InvalidArgument,
                 "resize takes HWC images, got shape ", shape_to_string(s));
    SLUICE_CHECK(i == 0 || s[2] == channels, InvalidArgument,
                 "all images of a batch must have the same number of channels");
    channels = static_cast<int>(s[2]);
    ResizePlan plan = resize_plan(ws, i, s[0], s[1]);
    const CropWindow& w = plan.input;
    shapes[i] = {plan.geometry.out_h, plan.geometry.out_w, s[2]};
    samples[i].in = in.sample<uint8_t>(i) + (w.y * s[1] + w.x) * s[2];
    samples[i].in_h = w.h;
    samples[i].in_w = w.w;
    samples[i].in_row_stride = s[1] * s[2];
    samples[i].params = {plan.geometry, filters_};
  }
  out.resize(shapes, out_type);
  out.set_layout("HWC");
  for (int i = 0; i < n; ++i) samples[i].out = out.raw_sample(i);
  kernels::GpuScratchSizes sizes = kernels::resize_gpu_scratch_sizes(samples, channels, out_type);
  auto pages = upload_->begin(sizes.host_bytes, ws.stream(), sizes.device_bytes);
  kernels::resize_gpu(samples, channels, out_type,
                      {pages.pinned, sizes.host_bytes, pages.device, sizes.device_bytes},
                      ws.stream());
  upload_->end(ws.stream());
}

SLUICE_REGISTER_OPERATOR("resize", OpDevice::kGPU, ResizeGpu);
SLUICE_REGISTER_OPERATOR("random_resized_crop", OpDevice::kGPU, ResizeGpu);
SLUICE_REGISTER_OPERATOR("resize_crop_mirror", OpDevice::kGPU, ResizeGpu);

}  // namespace sluice
