#include "sluice/kernels/displace/displace.h"

namespace sluice::kernels {

void displace_cpu(const DisplaceSample& s, DisplaceParams p) {
  for (int64_t y = 0; y < s.height; ++y) {
    for (int64_t x = 0; x < s.width; ++x) {
      if (p.is_float) {
        displace_pixel<float>(s, p, y, x);
      } else {
        displace_pixel<uint8_t>(s, p, y, x);
      }
    }
  }
}

}  // namespace sluice::kernels
