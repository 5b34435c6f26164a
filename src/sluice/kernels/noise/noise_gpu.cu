#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/noise/noise.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;

__global__ void noise_kernel(NoiseKind kind, const NoiseSample* samples, DType t, int size) {
  const NoiseSample& s = samples[blockIdx.y];
  for (int64_t i = int64_t{blockIdx.x} * kThreads + threadIdx.x; i < s.n;
       i += int64_t{gridDim.x} * kThreads) {
    noise_element(kind, s, t, size, i);
  }
}

}  // namespace

void noise_gpu(NoiseKind kind, const NoiseSample* samples, int num_samples, int64_t max_n, DType t,
               void* stream) {
  if (num_samples == 0 || max_n == 0) return;
  const dim3 grid = batch_grid(num_samples, max_n, kThreads, 1024);
  noise_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      kind, samples, t, static_cast<int>(dtype_size(t)));
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
