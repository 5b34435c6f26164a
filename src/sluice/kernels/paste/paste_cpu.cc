#include <algorithm>
#include <cstring>

#include "sluice/kernels/paste/paste.h"

namespace sluice::kernels {
namespace {

template <typename Out, typename In>
void multi_paste_typed(const MultiPasteSample& s, const PasteRegion* regions) {
  Out* out = static_cast<Out*>(s.out);
  std::fill(out, out + s.height * s.width * s.channels, Out{0});
  const int64_t c = s.channels;
  for (int k = 0; k < s.num_regions; ++k) {
    const PasteRegion& r = regions[s.first_region + k];
    const In* in = static_cast<const In*>(r.in);
    for (int64_t y = 0; y < r.height; ++y) {
      const In* src = in + ((r.in_y + y) * r.in_width + r.in_x) * c;
      Out* dst = out + ((r.out_y + y) * s.width + r.out_x) * c;
      for (int64_t i = 0; i < r.width * c; ++i) dst[i] = convert_sat<Out>(src[i]);
    }
  }
}

}  // namespace

void multi_paste_cpu(const MultiPasteSample& s, const PasteRegion* regions, DType out, DType in) {
  paste_type_dispatch(out, [&](auto o) {
    paste_type_dispatch(in, [&](auto i) {
      multi_paste_typed<typename decltype(o)::type, typename decltype(i)::type>(s, regions);
    });
  });
}

void paste_cpu(const PasteSample& s, const uint8_t* fill) {
  const int64_t c = s.channels;
  auto fill_run = [&](uint8_t* dst, int64_t pixels) {
    for (int64_t p = 0; p < pixels; ++p) std::copy(fill, fill + c, dst + p * c);
  };
  for (int64_t y = 0; y < s.out_height; ++y) {
    uint8_t* row = s.out + y * s.out_width * c;
    const int64_t iy = y - s.y;
    if (iy < 0 || iy >= s.in_height) {
      fill_run(row, s.out_width);
      continue;
    }
    fill_run(row, s.x);
    std::memcpy(row + s.x * c, s.in + iy * s.in_width * c, static_cast<size_t>(s.in_width * c));
    fill_run(row + (s.x + s.in_width) * c, s.out_width - s.x - s.in_width);
  }
}

}  // namespace sluice::kernels
