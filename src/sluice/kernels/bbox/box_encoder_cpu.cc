#include "sluice/kernels/bbox/box_encoder.h"

namespace sluice::kernels {

void box_encoder_cpu(const BoxEncoderParams& p, const BoxEncoderSample& s, int* best_anchor) {
  // Each box's best anchor (the last of equals) counts as a match of IoU 2.
  for (int b = 0; b < s.num_boxes; ++b) {
    float best = box_iou(s.boxes + 4 * b, p.anchors);
    best_anchor[b] = 0;
    for (int a = 1; a < p.num_anchors; ++a) {
      const float iou = box_iou(s.boxes + 4 * b, p.anchors + 4 * a);
      if (iou >= best) best = iou, best_anchor[b] = a;
    }
  }
  for (int a = 0; a < p.num_anchors; ++a) {
    int match = -1;
    float best = 0;
    for (int b = 0; b < s.num_boxes; ++b) {
      const float iou = best_anchor[b] == a ? 2.0f : box_iou(s.boxes + 4 * b, p.anchors + 4 * a);
      if (b == 0 || iou >= best) best = iou, match = b;
    }
    const bool matched = match >= 0 && best > p.criteria;
    encode_box(p, matched ? s.boxes + 4 * match : nullptr, p.anchors + 4 * a, s.out_boxes + 4 * a);
    s.out_labels[a] = matched ? s.labels[match] : 0;
  }
}

}  // namespace sluice::kernels
