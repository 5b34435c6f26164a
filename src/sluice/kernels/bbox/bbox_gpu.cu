#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/bbox/bbox.h"
#include "sluice/kernels/common/launch_grid.cuh"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 128;

// Block (x, y): boxes [x * kThreads, (x + 1) * kThreads) of sample y, one box per thread.
__global__ void bb_flip_kernel(const BoxFlipSample* samples, bool ltrb) {
  const BoxFlipSample s = samples[blockIdx.y];
  const int64_t b = int64_t{blockIdx.x} * kThreads + threadIdx.x;
  if (b < s.num_boxes) flip_box(s.in + 4 * b, s.out + 4 * b, ltrb, s.horizontal, s.vertical);
}

}  // namespace

void bb_flip_gpu(const BoxFlipSample* samples, int num_samples, int64_t max_boxes, bool ltrb,
                 void* stream) {
  if (num_samples == 0 || max_boxes == 0) return;
  const dim3 grid = batch_grid(num_samples, max_boxes, kThreads);
  bb_flip_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(samples, ltrb);
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
