#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/lookup/lookup.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocksX = 8192;

__global__ void one_hot_kernel(const OneHotSample* samples, OneHotParams p) {
  const OneHotSample& s = samples[blockIdx.y];
  const int64_t n = s.outer * p.classes * s.inner;
  for (int64_t o = int64_t{blockIdx.x} * kThreads + threadIdx.x; o < n;
       o += int64_t{gridDim.x} * kThreads) {
    one_hot_element(s, p, o);
  }
}

__global__ void lookup_kernel(const LookupSample* samples, LookupParams p) {
  const LookupSample& s = samples[blockIdx.y];
  for (int64_t i = int64_t{blockIdx.x} * kThreads + threadIdx.x; i < s.n;
       i += int64_t{gridDim.x} * kThreads) {
    lookup_element(s, p, i);
  }
}

}  // namespace

void one_hot_gpu(const OneHotSample* samples, int num_samples, int64_t max_out,
                 const OneHotParams& p, void* stream) {
  if (num_samples == 0 || max_out == 0) return;
  const dim3 grid = batch_grid(num_samples, max_out, kThreads, kMaxBlocksX);
  one_hot_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(samples, p);
  SLUICE_CUDA_CHECK_LAUNCH();
}

void lookup_gpu(const LookupSample* samples, int num_samples, int64_t max_n, const LookupParams& p,
                void* stream) {
  if (num_samples == 0 || max_n == 0) return;
  const dim3 grid = batch_grid(num_samples, max_n, kThreads, kMaxBlocksX);
  lookup_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(samples, p);
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
