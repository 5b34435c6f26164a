#include "sluice/kernels/mask/grid_mask.h"

#include <algorithm>
#include <cstring>

namespace sluice::kernels {
namespace {

template <typename W>
void grid_mask_typed(const GridMaskSample& s) {
  const W* in = static_cast<const W*>(s.in);
  W* out = static_cast<W*>(s.out);
  const int64_t c = s.channels;
  for (int64_t y = 0; y < s.height; ++y) {
    for (int64_t x = 0; x < s.width; ++x) {
      const int64_t off = (y * s.width + x) * c;
      if (grid_mask_keeps(s, y, x)) {
        std::copy(in + off, in + off + c, out + off);
      } else {
        std::fill(out + off, out + off + c, W{0});
      }
    }
  }
}

}  // namespace

void grid_mask_cpu(const GridMaskSample& s, size_t elem_size) {
  switch (elem_size) {
    case 1:
      return grid_mask_typed<uint8_t>(s);
    case 2:
      return grid_mask_typed<uint16_t>(s);
    case 4:
      return grid_mask_typed<uint32_t>(s);
    default:
      return grid_mask_typed<uint64_t>(s);
  }
}

}  // namespace sluice::kernels
