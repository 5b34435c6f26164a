#pragma once
// Argument handling shared by crop, flip and crop_mirror_normalize (CPU and GPU): image views of
// samples, the crop window arguments and normalisation tables.

#include <optional>

#include "sluice/exec/operator.h"
#include "sluice/graph/op_schema.h"
#include "sluice/kernels/crop/crop_mirror_normalize.h"
#include "sluice/kernels/crop/crop_window.h"
#include "sluice/kernels/crop/image_view.h"

namespace sluice {

// An HWC or CHW image (the layout string of the list, HWC when unspecified).
struct ImageGeometry {
  int64_t height, width, channels;
  ImageLayout layout;
};
ImageGeometry image_geometry(const TensorList& t, int sample);

template <typename T>
ImageView<T> image_view(const TensorList& t, int sample, const ImageGeometry& g) {
  return {static_cast<T*>(t.raw_sample(sample)), g.height, g.width, g.channels, g.layout};
}

Shape image_shape(int64_t h, int64_t w, int64_t c, ImageLayout layout);

// The crop window arguments of crop and crop_mirror_normalize: crop / crop_h / crop_w,
// crop_pos_x / crop_pos_y, out_of_bounds_policy and fill_values.
OpSchema crop_window_args(OpSchema s);

// The window crop / crop_h / crop_w / crop_pos_x / crop_pos_y ask for on a `height` x `width`
// image, before any out_of_bounds_policy (it may reach outside); nullopt when no crop was asked
// for.
std::optional<CropWindow> requested_window(const Workspace& ws, int sample, int64_t height,
                                           int64_t width);

// The window fixed by crop / crop_h / crop_w / crop_pos_x / crop_pos_y for `sample`, after the
// out_of_bounds_policy; nullopt when no crop was asked for (whole image).
std::optional<CropWindow> fixed_window(const Workspace& ws, int sample, int64_t height,
                                       int64_t width);

// crop_mirror_normalize's per-channel table for `channels` input channels.
CmnChannelTable cmn_table(const Workspace& ws, int sample, int channels);

// Element types the crop kernels take.
template <typename Fn>
void crop_type_dispatch(DType t, Fn&& fn) {
  switch (t) {
    case DType::kUInt8:
      return fn(TypeTag<uint8_t>{});
    case DType::kInt8:
      return fn(TypeTag<int8_t>{});
    case DType::kUInt16:
      return fn(TypeTag<uint16_t>{});
    case DType::kInt16:
      return fn(TypeTag<int16_t>{});
    case DType::kFloat16:
      return fn(TypeTag<float16>{});
    case DType::kFloat32:
      return fn(TypeTag<float>{});
    default:
      throw InvalidArgument(make_string("input type ", dtype_name(t),
                                        " is not supported; use UINT8, INT8, UINT16, INT16, "
                                        "FLOAT16 or FLOAT"));
  }
}

}  // namespace sluice
