#include <cuda_runtime.h>

#include <algorithm>

#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/geometry/warp_gpu.h"

namespace sluice::kernels {
namespace {

constexpr int kBlock = 256;
constexpr int kItems = 4;  // output pixels per thread, kBlock apart

// Block (x, y) writes pixels [x, x + 1) * kBlock * kItems of sample y. The sample and its
// matrix are read once per block; a thread finds its pixel's row with one division and then
// steps along (a division per pixel cost more than the warp itself).
template <typename Out, typename In, int kChannels>
__global__ void warp_kernel(const WarpSample* __restrict__ samples) {
  __shared__ float m_shared[6];
  // The matrix from the descriptor in global memory: taking the address of the local copy's
  // matrix would put the whole copy in (slow) local memory.
  if (threadIdx.x == 0) warp_matrix(samples[blockIdx.y], m_shared);
  const WarpSample s = samples[blockIdx.y];
  __syncthreads();
  float m[6];
#pragma unroll
  for (int k = 0; k < 6; ++k) m[k] = m_shared[k];
  const int64_t pixels = s.out_h * s.out_w;
  int64_t p = int64_t{blockIdx.x} * kBlock * kItems + threadIdx.x;
  if (p >= pixels) return;
  int64_t y = p / s.out_w, x = p - y * s.out_w;
  // 32-bit input offsets where they fit (64-bit integer arithmetic takes several instructions).
  const bool small = s.in_h * s.in_w * s.channels < INT32_MAX;
  for (int it = 0; it < kItems && p < pixels; ++it, p += kBlock) {
    if (small) {
      warp_pixel<Out, In, kChannels, int32_t>(s, m, y, x);
    } else {
      warp_pixel<Out, In, kChannels, int64_t>(s, m, y, x);
    }
    x += kBlock;
    while (x >= s.out_w) {
      x -= s.out_w;
      ++y;
    }
  }
}

}  // namespace

void warp_gpu(const WarpSample* samples, int num_samples, int64_t max_pixels, int channels,
              DType in_type, DType out_type, void* stream) {
  if (num_samples == 0 || max_pixels == 0) return;
  const int64_t per_block = int64_t{kBlock} * kItems;
  const dim3 grid(static_cast<unsigned>((max_pixels + per_block - 1) / per_block),
                  static_cast<unsigned>(num_samples));
  auto st = static_cast<cudaStream_t>(stream);
  warp_type_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    if (channels == 3) {
      warp_kernel<Out, In, 3><<<grid, kBlock, 0, st>>>(samples);
    } else if (channels == 1) {
      warp_kernel<Out, In, 1><<<grid, kBlock, 0, st>>>(samples);
    } else {
      warp_kernel<Out, In, 0><<<grid, kBlock, 0, st>>>(samples);
    }
    SLUICE_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace sluice::kernels
