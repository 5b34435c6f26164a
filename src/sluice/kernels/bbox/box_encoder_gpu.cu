#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/bbox/box_encoder.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kChunk = 1024;  // boxes whose best anchors sit in shared memory at a time

// One block per sample. Boxes go in chunks: the block finds each box's best anchor (a reduction
// over anchors, the last of equals as on the CPU), then every thread updates the running best box
// of its anchors, kept in the outputs (IoU in the box, index in the label) until the last chunk.
__global__ void box_encoder_kernel(BoxEncoderParams p, const BoxEncoderSample* samples) {
  const BoxEncoderSample s = samples[blockIdx.x];
  __shared__ int best_anchor[kChunk];
  __shared__ float red_iou[kThreads];
  __shared__ int red_idx[kThreads];
  for (int a = threadIdx.x; a < p.num_anchors; a += kThreads) {
    s.out_boxes[4 * a] = 0.0f;
    s.out_labels[a] = -1;
  }
  for (int c0 = 0; c0 < s.num_boxes; c0 += kChunk) {
    const int c1 = min(s.num_boxes, c0 + kChunk);
    for (int b = c0; b < c1; ++b) {
      float best = -1.0f;
      int idx = -1;
      for (int a = threadIdx.x; a < p.num_anchors; a += kThreads) {
        const float iou = box_iou(s.boxes + 4 * b, p.anchors + 4 * a);
        if (iou >= best) best = iou, idx = a;
      }
      red_iou[threadIdx.x] = best;
      red_idx[threadIdx.x] = idx;
      __syncthreads();
      for (int half = kThreads / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
          const float o = red_iou[threadIdx.x + half];
          const int oi = red_idx[threadIdx.x + half];
          if (o > red_iou[threadIdx.x] ||
              (o == red_iou[threadIdx.x] && oi > red_idx[threadIdx.x])) {
            red_iou[threadIdx.x] = o;
            red_idx[threadIdx.x] = oi;
          }
        }
        __syncthreads();
      }
      if (threadIdx.x == 0) best_anchor[b - c0] = red_idx[0];
      __syncthreads();
    }
    for (int a = threadIdx.x; a < p.num_anchors; a += kThreads) {
      float best = s.out_boxes[4 * a];
      int match = s.out_labels[a];
      for (int b = c0; b < c1; ++b) {
        const float iou =
            best_anchor[b - c0] == a ? 2.0f : box_iou(s.boxes + 4 * b, p.anchors + 4 * a);
        if (b == 0 || iou >= best) best = iou, match = b;
      }
      s.out_boxes[4 * a] = best;
      s.out_labels[a] = match;
    }
    __syncthreads();
  }
  for (int a = threadIdx.x; a < p.num_anchors; a += kThreads) {
    const int match = s.out_labels[a];
    const bool matched = match >= 0 && s.out_boxes[4 * a] > p.criteria;
    encode_box(p, matched ? s.boxes + 4 * match : nullptr, p.anchors + 4 * a, s.out_boxes + 4 * a);
    s.out_labels[a] = matched ? s.labels[match] : 0;
  }
}

}  // namespace

void box_encoder_gpu(const BoxEncoderParams& params, const BoxEncoderSample* samples,
                     int num_samples, void* stream) {
  if (num_samples == 0 || params.num_anchors == 0) return;
  box_encoder_kernel<<<num_samples, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(params,
                                                                                      samples);
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
