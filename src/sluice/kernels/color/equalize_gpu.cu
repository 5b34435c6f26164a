// Histogram equalization on the GPU (equalize.h): a launch that counts each channel's values
// (shared-memory histograms, added to the channel's), then one that builds each channel's table
// in every block and maps the values.

#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/color/equalize.h"
#include "sluice/kernels/common/launch_grid.cuh"

namespace sluice::kernels {
namespace {

constexpr int kThreads = kEqualizeBins;  // one thread per bin
constexpr int kMaxBlocksX = 1024;
constexpr int kMaxBlocksY = 65535;

__global__ void histogram_kernel(const EqualizeChannel* channels, uint32_t* hists) {
  __shared__ uint32_t h[kEqualizeBins];
  const EqualizeChannel c = channels[blockIdx.y];
  h[threadIdx.x] = 0;
  __syncthreads();
  for (int64_t i = int64_t{blockIdx.x} * kThreads + threadIdx.x; i < c.pixels;
       i += int64_t{gridDim.x} * kThreads) {
    atomicAdd(&h[c.in[i * c.stride]], 1u);
  }
  __syncthreads();
  if (h[threadIdx.x] != 0)
    atomicAdd(&hists[blockIdx.y * kEqualizeBins + threadIdx.x], h[threadIdx.x]);
}

__global__ void map_kernel(const EqualizeChannel* channels, const uint32_t* hists) {
  __shared__ uint32_t cdf[kEqualizeBins];
  __shared__ uint8_t lut[kEqualizeBins];
  __shared__ int first;
  const EqualizeChannel c = channels[blockIdx.y];
  if (int64_t{blockIdx.x} * kThreads >= c.pixels) return;
  const int t = threadIdx.x;
  cdf[t] = hists[blockIdx.y * kEqualizeBins + t];
  if (t == 0) first = kEqualizeBins;
  __syncthreads();
  if (cdf[t] != 0) atomicMin(&first, t);
  for (int step = 1; step < kEqualizeBins; step <<= 1) {  // inclusive scan
    const uint32_t add = t >= step ? cdf[t - step] : 0;
    __syncthreads();
    cdf[t] += add;
    __syncthreads();
  }
  const int64_t first_count = cdf[first];
  if (first_count == c.pixels) {
    lut[t] = static_cast<uint8_t>(t);  // one value: kept, as OpenCV
  } else {
    lut[t] = t <= first
                 ? 0
                 : equalize_entry(cdf[t] - first_count, equalize_scale(c.pixels, first_count));
  }
  __syncthreads();
  for (int64_t i = int64_t{blockIdx.x} * kThreads + t; i < c.pixels;
       i += int64_t{gridDim.x} * kThreads) {
    c.out[i * c.stride] = lut[c.in[i * c.stride]];
  }
}

}  // namespace

void equalize_gpu(const EqualizeChannel* channels, int num_channels, int64_t max_pixels,
                  uint32_t* hists, void* stream) {
  if (num_channels == 0 || max_pixels == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  SLUICE_CUDA_CHECK(cudaMemsetAsync(hists, 0, sizeof(uint32_t) * kEqualizeBins * num_channels, s));
  for (int k = 0; k < num_channels; k += kMaxBlocksY) {
    const int n = num_channels - k < kMaxBlocksY ? num_channels - k : kMaxBlocksY;
    const dim3 grid = batch_grid(n, max_pixels, kThreads, kMaxBlocksX);
    histogram_kernel<<<grid, kThreads, 0, s>>>(channels + k, hists + int64_t{k} * kEqualizeBins);
    SLUICE_CUDA_CHECK_LAUNCH();
    map_kernel<<<grid, kThreads, 0, s>>>(channels + k, hists + int64_t{k} * kEqualizeBins);
    SLUICE_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace sluice::kernels
