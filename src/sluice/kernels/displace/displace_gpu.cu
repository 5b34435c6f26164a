#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/displace/displace.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kPixelsPerBlock = int64_t{kThreads} * 4;

// Block (x, y) writes pixels [x * kPixelsPerBlock, (x + 1) * kPixelsPerBlock) of sample y.
template <typename T>
__global__ void displace_kernel(const DisplaceSample* samples, DisplaceParams p) {
  const DisplaceSample s = samples[blockIdx.y];
  const int64_t pixels = s.height * s.width;
  const int64_t begin = int64_t{blockIdx.x} * kPixelsPerBlock;
  const int64_t end = min(begin + kPixelsPerBlock, pixels);
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) {
    displace_pixel<T>(s, p, i / s.width, i % s.width);
  }
}

}  // namespace

void displace_gpu(const DisplaceSample* samples, int num_samples, DisplaceParams p,
                  int64_t max_pixels, void* stream) {
  if (num_samples == 0 || max_pixels == 0) return;
  const dim3 grid = batch_grid(num_samples, max_pixels, kPixelsPerBlock);
  auto st = static_cast<cudaStream_t>(stream);
  if (p.is_float) {
    displace_kernel<float><<<grid, kThreads, 0, st>>>(samples, p);
  } else {
    displace_kernel<uint8_t><<<grid, kThreads, 0, st>>>(samples, p);
  }
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
