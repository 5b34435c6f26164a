#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/elementwise/convert.h"
#include "sluice/kernels/random/random.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;

__global__ void random_kernel(RandomDist d, const RandomSample* samples, DType out_type,
                              const float* values) {
  const RandomSample& s = samples[blockIdx.y];
  const float* own = values ? values + s.first_value : nullptr;
  const int k = draws_per_value(d);
  for (int64_t i = int64_t{blockIdx.x} * kThreads + threadIdx.x; i < s.n;
       i += int64_t{gridDim.x} * kThreads) {
    const uint32_t u = s.rng.nth_u32(k * i);
    const uint32_t u2 = k == 2 ? s.rng.nth_u32(k * i + 1) : 0;
    store_sat(s.out, out_type, i, random_value(d, u, u2, s.p0, s.p1, own, s.num_values));
  }
}

}  // namespace

void random_gpu(RandomDist d, const RandomSample* samples, int num_samples, int64_t max_n,
                DType out_type, const float* values, void* stream) {
  if (num_samples == 0 || max_n == 0) return;
  const dim3 grid = batch_grid(num_samples, max_n, kThreads, 1024);
  random_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(d, samples, out_type,
                                                                          values);
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
