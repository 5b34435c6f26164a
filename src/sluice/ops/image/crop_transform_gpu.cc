#include "sluice/ops/image/crop_transform_gpu.h"

#include "sluice/kernels/crop/crop_gpu.h"

namespace sluice {

void crop_transform_batch_gpu(Workspace& ws, ParamUpload& upload,
                              const std::vector<ImageGeometry>& geo,
                              const std::vector<CropWindow>& win,
                              const std::vector<ImageTransform>& tf,
                              const std::vector<float>& fill) {
  const TensorList& in = ws.input(0);
  TensorList& out = ws.output(0);
  const int n = ws.batch_size();
  std::vector<ImageGeometry> out_geo(n);
  std::vector<Shape> shapes(n);
  for (int i = 0; i < n; ++i) {
    out_geo[i] = {win[i].h, win[i].w, geo[i].channels, geo[i].layout};
    shapes[i] = image_shape(win[i].h, win[i].w, geo[i].channels, geo[i].layout);
  }
  out.resize(shapes, in.dtype());
  out.set_layout(in.layout());
  std::vector<CropGpuSample> samples(n);
  crop_type_dispatch(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int i = 0; i < n; ++i) {
      samples[i] =
          make_crop_gpu_sample<T>(image_view<const T>(in, i, geo[i]),
                                  image_view<T>(out, i, out_geo[i]), win[i], tf[i], fill, i);
    }
  });
  auto pages = upload.begin(crop_gpu_descriptor_bytes(n), ws.stream());
  crop_transform_gpu(samples, dtype_size(in.dtype()), pages.pinned, pages.device, ws.stream());
  upload.end(ws.stream());
}

}  // namespace sluice
