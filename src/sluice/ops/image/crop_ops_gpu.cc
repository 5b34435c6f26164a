// crop, flip and crop_mirror_normalize on the GPU: one kernel launch per batch.

#include "sluice/memory/param_upload.h"
#include "sluice/kernels/crop/crop_gpu.h"
#include "sluice/kernels/crop/crop_mirror_normalize_gpu.h"
#include "sluice/ops/image/crop_args.h"

namespace sluice {
namespace {

class GpuDescriptorOp : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override {
    upload_ = std::make_unique<ParamUpload>(ctx.device_id);
  }

 protected:
  std::unique_ptr<ParamUpload> upload_;
};

// Shared by crop and flip: every sample is a window of its input with a transform.
class CropTransformGpu : public GpuDescriptorOp {
 public:
  using GpuDescriptorOp::GpuDescriptorOp;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const int n = ws.batch_size();
    const bool is_flip = spec_.type == "flip";
    std::vector<ImageGeometry> geo(n), out_geo(n);
    std::vector<CropWindow> win(n);
    std::vector<ImageTransform> tf(n);
    std::vector<Shape> shapes(n);
    for (int i = 0; i < n; ++i) {
      geo[i] = image_geometry(in, i);
      if (is_flip) {
        SLUICE_CHECK(ws.arg<int>("depthwise", i) == 0, NotImplemented, "depthwise flip");
        win[i] = {0, 0, geo[i].height, geo[i].width};
        tf[i] = {false, ws.arg<int>("horizontal", i) != 0, ws.arg<int>("vertical", i) != 0};
      } else {
        auto w = fixed_window(ws, i, geo[i].height, geo[i].width);
        SLUICE_CHECK(w, InvalidArgument, "crop needs crop=(h, w) or crop_h and crop_w");
        win[i] = *w;
      }
      out_geo[i] = {win[i].h, win[i].w, geo[i].channels, geo[i].layout};
      shapes[i] = image_shape(win[i].h, win[i].w, geo[i].channels, geo[i].layout);
    }
    out.resize(shapes, in.dtype());
    out.set_layout(in.layout());
    std::vector<float> fill =
        is_flip ? std::vector<float>{0.0f} : spec_.arg<std::vector<float>>("fill_values");
    std::vector<CropGpuSample> samples(n);
    crop_type_dispatch(in.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int i = 0; i < n; ++i) {
        samples[i] =
            make_crop_gpu_sample<T>(image_view<const T>(in, i, geo[i]),
                                    image_view<T>(out, i, out_geo[i]), win[i], tf[i], fill, i);
      }
    });
    auto pages = upload_->begin(crop_gpu_descriptor_bytes(n), ws.stream());
    crop_transform_gpu(samples, dtype_size(in.dtype()), pages.pinned, pages.device, ws.stream());
    upload_->end(ws.stream());
  }
};

class CropMirrorNormalizeGpu : public GpuDescriptorOp {
 public:
  using GpuDescriptorOp::GpuDescriptorOp;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    SLUICE_CHECK(in.dtype() == DType::kUInt8, InvalidArgument,
                 "GPU crop_mirror_normalize takes UINT8 input, got ", dtype_name(in.dtype()));
    const int n = ws.batch_size();
    std::vector<ImageGeometry> geo(n);
    std::vector<CropWindow> win(n);
    std::vector<Shape> shapes(n);
    std::vector<CmnGpuSample> samples(n);
    CmnChannelTable table;
    for (int i = 0; i < n; ++i) {
      geo[i] = image_geometry(in, i);
      SLUICE_CHECK(geo[i].layout == ImageLayout::kHWC, InvalidArgument,
                   "crop_mirror_normalize takes HWC input, got layout '", in.layout(), "'");
      SLUICE_CHECK(i == 0 || geo[i].channels == geo[0].channels, InvalidArgument,
                   "all samples of a batch must have the same number of channels");
      win[i] = fixed_window(ws, i, geo[i].height, geo[i].width)
                   .value_or(CropWindow{0, 0, geo[i].height, geo[i].width});
      CmnChannelTable t = cmn_table(ws, i, static_cast<int>(geo[i].channels));
      if (i == 0) table = t;
      shapes[i] = cmn_output_shape(win[i], t);
    }
    out.resize(shapes, table.out_type);
    out.set_layout(spec_.arg<std::string>("output_layout"));
    for (int i = 0; i < n; ++i) {
      // Per-sample mean/std (argument inputs) go into each descriptor.
      CmnChannelTable t = cmn_table(ws, i, static_cast<int>(geo[i].channels));
      samples[i] = make_cmn_gpu_sample(image_view<const uint8_t>(in, i, geo[i]), out.raw_sample(i),
                                       win[i], ws.arg<int>("mirror", i) != 0, t, i);
    }
    auto pages = upload_->begin(cmn_gpu_descriptor_bytes(n), ws.stream());
    crop_mirror_normalize_gpu(samples, table, pages.pinned, pages.device, ws.stream());
    upload_->end(ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("crop", OpDevice::kGPU, CropTransformGpu);
SLUICE_REGISTER_OPERATOR("flip", OpDevice::kGPU, CropTransformGpu);
SLUICE_REGISTER_OPERATOR("crop_mirror_normalize", OpDevice::kGPU, CropMirrorNormalizeGpu);

}  // namespace
}  // namespace sluice
