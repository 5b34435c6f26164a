// crop_mirror_normalize on the GPU: one kernel launch per batch (UINT8 input).

#include "sluice/kernels/crop/crop_mirror_normalize_gpu.h"
#include "sluice/ops/gpu_operator.h"
#include "sluice/ops/image/crop_args.h"

namespace sluice {
namespace {

class CropMirrorNormalizeGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
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

SLUICE_REGISTER_OPERATOR("crop_mirror_normalize", OpDevice::kGPU, CropMirrorNormalizeGpu);

}  // namespace
}  // namespace sluice
