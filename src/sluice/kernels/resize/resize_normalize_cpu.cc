#include "sluice/kernels/resize/resize_normalize_cpu.h"

#include "sluice/core/float16.h"
#include "sluice/kernels/resize/detail/resize_checks.h"
#include "sluice/kernels/resize/detail/resize_pixel.h"

namespace sluice::kernels {

void crop_mirror_normalize_u8_cpu(const ConstHwcImage& resized, const ResizeCrop& crop, bool mirror,
                                  const ResizeNormalizeParams& norm, ResizeOutputLayout layout,
                                  DType out_type, void* out) {
  constexpr const char* kWhat = "crop_mirror_normalize";
  SLUICE_CHECK(resized.type == DType::kUInt8, InvalidArgument, kWhat,
               ": input type must be UINT8, got ", dtype_name(resized.type));
  detail::check_normalize_params(norm, resized.channels, kWhat);
  detail::check_normalized_type(out_type, kWhat);
  const ResizeCrop c = detail::resolve_crop(crop, resized.height, resized.width, kWhat);
  if (c.height == 0 || c.width == 0) return;
  SLUICE_CHECK(resized.data != nullptr && out != nullptr, InvalidArgument, kWhat, ": null ",
               resized.data == nullptr ? "input" : "output", " data");
  const int64_t C = resized.channels;
  const int64_t stride = resized.row_stride != 0 ? resized.row_stride : resized.width * C;
  float mul[4];
  for (int64_t ch = 0; ch < C; ch++)
    mul[ch] = detail::normalize_multiplier(norm.scale, norm.stddev[ch]);
  const auto* in = static_cast<const uint8_t*>(resized.data);
  for (int64_t y = 0; y < c.height; y++) {
    for (int64_t x = 0; x < c.width; x++) {
      const int64_t xo = mirror ? c.width - 1 - x : x;
      const uint8_t* px = in + (c.y + y) * stride + (c.x + x) * C;
      for (int64_t ch = 0; ch < C; ch++) {
        const float v = crop_detail::cmn_normalize(static_cast<float>(px[ch]), norm.mean[ch],
                                                   mul[ch], norm.shift);
        const int64_t i = layout == ResizeOutputLayout::kHWC ? (y * c.width + xo) * C + ch
                                                             : (ch * c.height + y) * c.width + xo;
        if (out_type == DType::kFloat32) {
          static_cast<float*>(out)[i] = v;
        } else {
          static_cast<uint16_t*>(out)[i] = float_to_half_bits(v);
        }
      }
    }
  }
}

}  // namespace sluice::kernels
