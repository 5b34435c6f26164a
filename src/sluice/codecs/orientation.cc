// EXIF orientation geometry (image_info.h) and the rotate / flip of decoded pixels.

#include <algorithm>
#include <cstring>

#include "sluice/codecs/decoder_internal.h"
#include "sluice/codecs/image_info.h"

namespace sluice::codecs {

ImageSize oriented_size(const ImageInfo& info, bool adjust) {
  if (adjust && orientation_swaps_axes(info.orientation)) return {info.height, info.width};
  return {info.width, info.height};
}

CropWindow oriented_to_raw(const CropWindow& o, ImageSize raw, int orientation) {
  const int64_t W = raw.width, H = raw.height;
  switch (orientation) {
    case 2:
      return {o.y, W - o.x - o.w, o.h, o.w};
    case 3:
      return {H - o.y - o.h, W - o.x - o.w, o.h, o.w};
    case 4:
      return {H - o.y - o.h, o.x, o.h, o.w};
    case 5:
      return {o.x, o.y, o.w, o.h};
    case 6:
      return {H - o.x - o.w, o.y, o.w, o.h};
    case 7:
      return {H - o.x - o.w, W - o.y - o.h, o.w, o.h};
    case 8:
      return {o.x, W - o.y - o.h, o.w, o.h};
    default:
      return o;
  }
}

// The inverse transform on the oriented image: the two rotations (6 and 8) undo each other, every
// other orientation undoes itself.
CropWindow raw_to_oriented(const CropWindow& r, ImageSize raw, int orientation) {
  const int inverse = orientation == 6 ? 8 : (orientation == 8 ? 6 : orientation);
  const bool swap = orientation_swaps_axes(orientation);
  return oriented_to_raw(r, swap ? ImageSize{raw.height, raw.width} : raw, inverse);
}

namespace detail {
namespace {

// Copies `n` pixels of kBytes bytes, reading from `s` with a stride of `step` bytes.
template <size_t kBytes>
void gather(const uint8_t* s, ptrdiff_t step, uint8_t* d, int64_t n) {
  for (int64_t i = 0; i < n; ++i, s += step, d += kBytes) std::memcpy(d, s, kBytes);
}

void gather_any(const uint8_t* s, ptrdiff_t step, uint8_t* d, int64_t n, size_t px) {
  switch (px) {
    case 1:
      return gather<1>(s, step, d, n);
    case 2:
      return gather<2>(s, step, d, n);
    case 3:
      return gather<3>(s, step, d, n);
    case 4:
      return gather<4>(s, step, d, n);
    case 6:
      return gather<6>(s, step, d, n);
    case 8:
      return gather<8>(s, step, d, n);
    default:
      for (int64_t i = 0; i < n; ++i, s += step, d += px) std::memcpy(d, s, px);
  }
}

}  // namespace

void apply_orientation(const uint8_t* src, ImageSize raw, int channels, size_t elem_size,
                       int orientation, uint8_t* dst) {
  const int64_t W = raw.width, H = raw.height;
  const size_t px = static_cast<size_t>(channels) * elem_size;
  const ptrdiff_t row = static_cast<ptrdiff_t>(W * px);
  const ptrdiff_t ipx = static_cast<ptrdiff_t>(px);
  if (orientation < 1 || orientation > 8) orientation = 1;
  const bool swap = orientation_swaps_axes(orientation);
  const int64_t out_w = swap ? H : W, out_h = swap ? W : H;
  // For every output row, the source pixels form a line in the stored image: `start` is the
  // stored position of output pixel (0, yo) and `step` the byte distance to (1, yo).
  auto line = [&](int64_t yo, ptrdiff_t* step) -> const uint8_t* {
    int64_t sx = 0, sy = yo;
    *step = ipx;
    switch (orientation) {
      case 2:
        sx = W - 1, sy = yo, *step = -ipx;
        break;
      case 3:
        sx = W - 1, sy = H - 1 - yo, *step = -ipx;
        break;
      case 4:
        sx = 0, sy = H - 1 - yo;
        break;
      case 5:
        sx = yo, sy = 0, *step = row;
        break;
      case 6:
        sx = yo, sy = H - 1, *step = -row;
        break;
      case 7:
        sx = W - 1 - yo, sy = H - 1, *step = -row;
        break;
      case 8:
        sx = W - 1 - yo, sy = 0, *step = row;
        break;
      default:
        break;
    }
    return src + sy * row + sx * ipx;
  };
  if (!swap) {
    for (int64_t yo = 0; yo < out_h; ++yo) {
      ptrdiff_t step;
      const uint8_t* s = line(yo, &step);
      uint8_t* d = dst + yo * out_w * ipx;
      if (step == ipx) {
        std::memcpy(d, s, static_cast<size_t>(out_w) * px);
      } else {
        gather_any(s, step, d, out_w, px);
      }
    }
    return;
  }
  // Transposing orientations read the source column-wise: work in square tiles so that the
  // source rows a tile touches stay in cache.
  constexpr int64_t kTile = 64;
  for (int64_t y0 = 0; y0 < out_h; y0 += kTile) {
    const int64_t y1 = std::min(out_h, y0 + kTile);
    for (int64_t x0 = 0; x0 < out_w; x0 += kTile) {
      const int64_t n = std::min(out_w, x0 + kTile) - x0;
      for (int64_t yo = y0; yo < y1; ++yo) {
        ptrdiff_t step;
        const uint8_t* s = line(yo, &step) + x0 * step;
        gather_any(s, step, dst + (yo * out_w + x0) * ipx, n, px);
      }
    }
  }
}

}  // namespace detail
}  // namespace sluice::codecs
