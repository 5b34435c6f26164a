#pragma once
// box_encoder's arithmetic (SSD's matching of boxes to anchors, Liu et al. 2016): every anchor
// takes the box that overlaps it most when the IoU passes `criteria`, each box its best anchor
// in any case. Boxes and anchors are ltrb; the outputs are centre-and-size boxes (or their
// normalised offsets from the anchors) and labels. The per-box functions compile for the host
// and the device from one source (no contraction into FMAs), so both compute the same IoUs and
// make the same matches.

#include <cmath>
#include <cstdint>

#include "sluice/kernels/common/host_device.h"

namespace sluice::kernels {

struct BoxEncoderParams {
  const float* anchors;  // num_anchors ltrb boxes
  int num_anchors;
  float criteria;
  bool offset;
  float means[4], stds[4];
  float scale;
};

struct BoxEncoderSample {
  const float* boxes;  // num_boxes ltrb boxes
  const int32_t* labels;
  int num_boxes;
  float* out_boxes;  // num_anchors boxes
  int32_t* out_labels;
};

// Intersection over union of two ltrb boxes (0 when they do not overlap).
SLUICE_HOST_DEVICE inline float box_iou(const float* a, const float* b) {
  const float l = fmaxf(a[0], b[0]), t = fmaxf(a[1], b[1]);
  const float r = fminf(a[2], b[2]), btm = fminf(a[3], b[3]);
  if (r <= l || btm <= t) return 0.0f;
  const float inter = mul_rn(sub_rn(r, l), sub_rn(btm, t));
  if (inter == 0.0f) return 0.0f;
  const float va = mul_rn(sub_rn(a[2], a[0]), sub_rn(a[3], a[1]));
  const float vb = mul_rn(sub_rn(b[2], b[0]), sub_rn(b[3], b[1]));
  return div_rn(inter, sub_rn(add_rn(va, vb), inter));
}

// Writes the centre and size of ltrb box `b`.
SLUICE_HOST_DEVICE inline void write_center_size(const float* b, float* out) {
  out[0] = mul_rn(add_rn(b[0], b[2]), 0.5f);
  out[1] = mul_rn(add_rn(b[1], b[3]), 0.5f);
  out[2] = sub_rn(b[2], b[0]);
  out[3] = sub_rn(b[3], b[1]);
}

// Writes the box matched to `anchor` (or the anchor's default when `box` is null).
SLUICE_HOST_DEVICE inline void encode_box(const BoxEncoderParams& p, const float* box,
                                          const float* anchor, float* out) {
  if (!box) {
    if (p.offset) {
      out[0] = out[1] = out[2] = out[3] = 0.0f;
    } else {
      write_center_size(anchor, out);
    }
    return;
  }
  write_center_size(box, out);
  if (!p.offset) return;
  float a[4];
  write_center_size(anchor, a);
  for (int d = 0; d < 2; ++d) {
    const float bc = mul_rn(out[d], p.scale), be = mul_rn(out[d + 2], p.scale);
    const float ac = mul_rn(a[d], p.scale), ae = mul_rn(a[d + 2], p.scale);
    out[d] = div_rn(sub_rn(div_rn(sub_rn(bc, ac), ae), p.means[d]), p.stds[d]);
    out[d + 2] = div_rn(sub_rn(logf(div_rn(be, ae)), p.means[d + 2]), p.stds[d + 2]);
  }
}

// `best_anchor`: scratch of num_boxes entries.
void box_encoder_cpu(const BoxEncoderParams& p, const BoxEncoderSample& s, int* best_anchor);

// CUDA: `params.anchors` and `samples` in device memory; one block per sample.
void box_encoder_gpu(const BoxEncoderParams& params, const BoxEncoderSample* samples,
                     int num_samples, void* stream);

}  // namespace sluice::kernels
