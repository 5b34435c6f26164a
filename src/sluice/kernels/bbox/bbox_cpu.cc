#include <cmath>

#include "sluice/kernels/bbox/bbox.h"

namespace sluice::kernels {

void bb_flip_cpu(const BoxFlipSample& s, bool ltrb) {
  for (int64_t b = 0; b < s.num_boxes; ++b) {
    flip_box(s.in + 4 * b, s.out + 4 * b, ltrb, s.horizontal, s.vertical);
  }
}

void bbox_paste_cpu(const float* in, float* out, int64_t num_boxes, bool ltrb, float ratio,
                    float paste_x, float paste_y) {
  const float scale = 1 / ratio;
  const float ofs_mul = (ratio - 1) / ratio;
  float ofs[2] = {paste_x * ofs_mul, paste_y * ofs_mul};
  for (float& o : ofs) {
    // The largest offset that keeps scale + offset <= 1, so boxes in [0, 1] stay there.
    if (scale + o > 1) {
      o = 1 - scale;
      while (scale + o > 1) o = std::nextafter(o, -INFINITY);
    }
  }
  for (int64_t b = 0; b < num_boxes; ++b) {
    const float* i = in + 4 * b;
    float* o = out + 4 * b;
    o[0] = i[0] * scale + ofs[0];
    o[1] = i[1] * scale + ofs[1];
    o[2] = ltrb ? i[2] * scale + ofs[0] : i[2] * scale;
    o[3] = ltrb ? i[3] * scale + ofs[1] : i[3] * scale;
  }
}

}  // namespace sluice::kernels
