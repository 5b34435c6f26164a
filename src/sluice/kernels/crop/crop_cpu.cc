#include "sluice/kernels/crop/crop_cpu.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/kernels/crop/crop_math.h"
#include "sluice/kernels/crop/crop_validate.h"

namespace sluice {
namespace {

// The copy only moves bits, so it is written once per element size (S is a storage type of that
// size) and shared by every element type.
template <typename S>
struct Plane {
  const S* in;  // first element of the channel plane (CHW) or channel 0 (HWC)
  S* out;
  int64_t in_row, in_pixel;    // input strides (elements)
  int64_t out_row, out_pixel;  // output strides (elements)
  int64_t pixel_elems;         // contiguous channel elements per pixel: C (HWC) or 1 (CHW)
  const S* fill;               // pixel_elems fill values
};

// Interval of t in [0, n) with 0 <= s0 + d * t < extent, d in {-1, 0, 1}.
void inside_range(int64_t s0, int64_t d, int64_t extent, int64_t n, int64_t* lo, int64_t* hi) {
  int64_t a, b;
  if (d == 0) {
    a = 0;
    b = (s0 >= 0 && s0 < extent) ? n : 0;
  } else if (d > 0) {
    a = -s0;
    b = extent - s0;
  } else {
    a = s0 - extent + 1;
    b = s0 + 1;
  }
  *lo = std::clamp<int64_t>(a, 0, n);
  *hi = std::clamp<int64_t>(b, *lo, n);
}

template <typename S>
void fill_pixels(const Plane<S>& p, S* out_row, int64_t from, int64_t to) {
  for (int64_t ox = from; ox < to; ++ox) {
    S* o = out_row + ox * p.out_pixel;
    for (int64_t c = 0; c < p.pixel_elems; ++c) o[c] = p.fill[c];
  }
}

// One output row: along it the source moves by (dy, dx) pixels per output pixel from (sy, sx),
// because every transform of ImageTransform maps output rows to source rows or columns.
template <typename S>
void transform_row(const Plane<S>& p, S* out_row, int64_t ow, int64_t sy, int64_t sx, int64_t dy,
                   int64_t dx, int64_t in_h, int64_t in_w) {
  int64_t ylo, yhi, xlo, xhi;
  inside_range(sy, dy, in_h, ow, &ylo, &yhi);
  inside_range(sx, dx, in_w, ow, &xlo, &xhi);
  const int64_t lo = std::max(ylo, xlo);
  const int64_t hi = std::max(lo, std::min(yhi, xhi));
  fill_pixels(p, out_row, 0, lo);
  if (hi > lo) {
    const S* src = p.in + (sy + dy * lo) * p.in_row + (sx + dx * lo) * p.in_pixel;
    const int64_t step = dy * p.in_row + dx * p.in_pixel;
    S* dst = out_row + lo * p.out_pixel;
    if (step == p.pixel_elems && p.out_pixel == p.pixel_elems) {
      std::memcpy(dst, src, static_cast<size_t>((hi - lo) * p.pixel_elems) * sizeof(S));
    } else if (p.pixel_elems == 1) {
      for (int64_t i = 0; i < hi - lo; ++i) dst[i * p.out_pixel] = src[i * step];
    } else {
      for (int64_t i = 0; i < hi - lo; ++i) {
        for (int64_t c = 0; c < p.pixel_elems; ++c) dst[i * p.out_pixel + c] = src[i * step + c];
      }
    }
  }
  fill_pixels(p, out_row, hi, ow);
}

template <typename S>
void crop_transform_impl(const S* in, int64_t in_h, int64_t in_w, int64_t channels,
                         ImageLayout layout, S* out, const CropWindow& win, ImageTransform t,
                         const std::vector<S>& fill) {
  int64_t oh, ow;
  transformed_size(win, t, &oh, &ow);
  const bool hwc = layout == ImageLayout::kHWC;
  const int64_t planes = hwc ? 1 : channels;
  Plane<S> p;
  p.in_row = hwc ? in_w * channels : in_w;
  p.in_pixel = hwc ? channels : 1;
  p.out_row = hwc ? ow * channels : ow;
  p.out_pixel = hwc ? channels : 1;
  p.pixel_elems = hwc ? channels : 1;
  for (int64_t plane = 0; plane < planes; ++plane) {
    p.in = in + plane * in_h * in_w;
    p.out = out + plane * oh * ow;
    p.fill = fill.data() + plane;
    for (int64_t oy = 0; oy < oh; ++oy) {
      // Source of (oy, ox) per the ImageTransform contract, as a start and a step along ox.
      int64_t sy, sx, dy, dx;
      if (!t.transpose) {
        sy = win.y + (t.flip_y ? win.h - 1 - oy : oy);
        dy = 0;
        sx = win.x + (t.flip_x ? win.w - 1 : 0);
        dx = t.flip_x ? -1 : 1;
      } else {
        sx = win.x + (t.flip_x ? win.w - 1 - oy : oy);
        dx = 0;
        sy = win.y + (t.flip_y ? win.h - 1 : 0);
        dy = t.flip_y ? -1 : 1;
      }
      transform_row(p, p.out + oy * p.out_row, ow, sy, sx, dy, dx, in_h, in_w);
    }
  }
}

template <typename T>
using StorageOf = std::conditional_t<sizeof(T) == 1, uint8_t,
                                     std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>>;

}  // namespace

template <typename T>
void crop_transform_cpu(std::type_identity_t<ImageView<const T>> in, ImageView<T> out,
                        const CropWindow& window, ImageTransform transform,
                        std::span<const float> fill_values) {
  using S = StorageOf<T>;
  static_assert(sizeof(S) == sizeof(T));
  crop_detail::check_crop_transform({in.height, in.width, in.channels, in.layout, in.data},
                                    {out.height, out.width, out.channels, out.layout, out.data},
                                    window, transform);
  crop_detail::check_fill_values(fill_values, in.channels);
  if (out.num_elements() == 0) return;
  // Fill values converted once; for HWC indexed by channel, for CHW by plane.
  std::vector<S> fill(static_cast<size_t>(in.channels));
  for (int64_t c = 0; c < in.channels; ++c) {
    T v = crop_detail::float_to<T>(crop_detail::fill_value(fill_values, c));
    std::memcpy(&fill[static_cast<size_t>(c)], &v, sizeof(S));
  }
  crop_transform_impl<S>(reinterpret_cast<const S*>(in.data), in.height, in.width, in.channels,
                         in.layout, reinterpret_cast<S*>(out.data), window, transform, fill);
}

#define SLUICE_INSTANTIATE_CROP(T)                                                            \
  template void crop_transform_cpu<T>(std::type_identity_t<ImageView<const T>>, ImageView<T>, \
                                      const CropWindow&, ImageTransform, std::span<const float>);
SLUICE_INSTANTIATE_CROP(uint8_t)
SLUICE_INSTANTIATE_CROP(int8_t)
SLUICE_INSTANTIATE_CROP(uint16_t)
SLUICE_INSTANTIATE_CROP(int16_t)
SLUICE_INSTANTIATE_CROP(float16)
SLUICE_INSTANTIATE_CROP(float)
#undef SLUICE_INSTANTIATE_CROP

}  // namespace sluice
