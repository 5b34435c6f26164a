#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/mask/grid_mask.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kPixelsPerBlock = int64_t{kThreads} * 4;

// Block (x, y) writes pixels [x * kPixelsPerBlock, (x + 1) * kPixelsPerBlock) of sample y.
template <typename W>
__global__ void grid_mask_kernel(const GridMaskSample* samples) {
  const GridMaskSample s = samples[blockIdx.y];
  const int64_t pixels = s.height * s.width;
  const int64_t begin = int64_t{blockIdx.x} * kPixelsPerBlock;
  const int64_t end = min(begin + kPixelsPerBlock, pixels);
  const W* in = static_cast<const W*>(s.in);
  W* out = static_cast<W*>(s.out);
  for (int64_t p = begin + threadIdx.x; p < end; p += kThreads) {
    const bool keep = grid_mask_keeps(s, p / s.width, p % s.width);
    const int64_t off = p * s.channels;
    for (int64_t c = 0; c < s.channels; ++c) out[off + c] = keep ? in[off + c] : W{0};
  }
}

}  // namespace

void grid_mask_gpu(const GridMaskSample* samples, int num_samples, int64_t max_pixels,
                   size_t elem_size, void* stream) {
  if (num_samples == 0 || max_pixels == 0) return;
  const dim3 grid = batch_grid(num_samples, max_pixels, kPixelsPerBlock);
  auto s = static_cast<cudaStream_t>(stream);
  switch (elem_size) {
    case 1:
      grid_mask_kernel<uint8_t><<<grid, kThreads, 0, s>>>(samples);
      break;
    case 2:
      grid_mask_kernel<uint16_t><<<grid, kThreads, 0, s>>>(samples);
      break;
    default:
      grid_mask_kernel<uint32_t><<<grid, kThreads, 0, s>>>(samples);
      break;
  }
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
