#include "sluice/kernels/bbox/bbox.h"

namespace sluice::kernels {

void bb_flip_cpu(const BoxFlipSample& s, bool ltrb) {
  for (int64_t b = 0; b < s.num_boxes; ++b) {
    flip_box(s.in + 4 * b, s.out + 4 * b, ltrb, s.horizontal, s.vertical);
  }
}

}  // namespace sluice::kernels
