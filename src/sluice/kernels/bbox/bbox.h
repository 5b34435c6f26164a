#pragma once
// Bounding-box arithmetic of the detection operators (bb_flip, bbox_paste): boxes are 4 floats,
// [x, y, w, h] (xywh) or [left, top, right, bottom] (ltrb), in relative image coordinates. The
// per-box functions compile for the host and the device from one source, so the CUDA kernels
// give the CPU's bits.

#include <cstdint>

#include "sluice/kernels/common/host_device.h"

namespace sluice::kernels {

// One sample of bb_flip: `num_boxes` boxes from `in` to `out`.
struct BoxFlipSample {
  const float* in;
  float* out;
  int64_t num_boxes;
  bool horizontal, vertical;
};

// Mirrors one box about the image's centre line(s). xywh boxes go through their corners (as
// DALI's do), so an unflipped xywh box's extent is (x + w) - x, rounded.
SLUICE_HOST_DEVICE inline void flip_box(const float* in, float* out, bool ltrb, bool horizontal,
                                        bool vertical) {
  for (int axis = 0; axis < 2; ++axis) {
    float lo = in[axis];
    float hi = ltrb ? in[axis + 2] : add_rn(in[axis], in[axis + 2]);
    if (axis == 0 ? horizontal : vertical) {
      const float flipped_lo = sub_rn(1.0f, hi);
      hi = sub_rn(1.0f, lo);
      lo = flipped_lo;
    }
    out[axis] = lo;
    out[axis + 2] = ltrb ? hi : sub_rn(hi, lo);
  }
}

void bb_flip_cpu(const BoxFlipSample& s, bool ltrb);

// bbox_paste: moves boxes to where they lie after their image is pasted at (paste_x, paste_y)
// (relative) on a canvas `ratio` times larger. Boxes inside [0, 1] stay inside.
void bbox_paste_cpu(const float* in, float* out, int64_t num_boxes, bool ltrb, float ratio,
                    float paste_x, float paste_y);

// CUDA: `samples` in device memory; `max_boxes` the most boxes of a sample.
void bb_flip_gpu(const BoxFlipSample* samples, int num_samples, int64_t max_boxes, bool ltrb,
                 void* stream);

}  // namespace sluice::kernels
