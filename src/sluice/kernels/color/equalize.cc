// Histogram equalization of one channel on the CPU (equalize.h).

#include "sluice/kernels/color/equalize.h"

namespace sluice::kernels {

void equalize_cpu(const EqualizeChannel& c) {
  if (c.pixels == 0) return;
  int64_t hist[kEqualizeBins] = {};
  for (int64_t i = 0; i < c.pixels; ++i) ++hist[c.in[i * c.stride]];
  int first = 0;
  while (hist[first] == 0) ++first;
  uint8_t lut[kEqualizeBins] = {};
  if (hist[first] == c.pixels) {
    lut[first] = static_cast<uint8_t>(first);  // one value: kept, as OpenCV
  } else {
    const float scale = equalize_scale(c.pixels, hist[first]);
    int64_t above = 0;
    for (int v = first + 1; v < kEqualizeBins; ++v) {
      above += hist[v];
      lut[v] = equalize_entry(above, scale);
    }
  }
  for (int64_t i = 0; i < c.pixels; ++i) c.out[i * c.stride] = lut[c.in[i * c.stride]];
}

}  // namespace sluice::kernels
