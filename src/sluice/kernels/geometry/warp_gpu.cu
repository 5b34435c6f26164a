#include <cuda_runtime.h>

#include <algorithm>

#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/geometry/warp_gpu.h"

namespace sluice::kernels {
namespace {

// A block is kTileW x kTileH threads; each thread writes kRows pixels of a column, kTileH rows
// apart. 2D tiles read the input where neighbouring output pixels map to neighbouring input:
// 1.21x faster than 256 pixels along a row at 1080p, rotations included, the same bytes out
// (bench/lab/warp_variants.cu, bench/RESULTS.md#vs-dali-operators).
constexpr int kTileW = 32;
constexpr int kTileH = 4;
constexpr int kRows = 4;

// Block (x, y, z) writes the tile (x, y) of sample z. The sample's matrix is read once per block.
template <typename Out, typename In, int kChannels>
__global__ void warp_kernel(const WarpSample* __restrict__ samples) {
  __shared__ float m_shared[6];
  // The matrix from the descriptor in global memory: taking the address of the local copy's
  // matrix would put the whole copy in (slow) local memory.
  if (threadIdx.x == 0 && threadIdx.y == 0) warp_matrix(samples[blockIdx.z], m_shared);
  const WarpSample s = samples[blockIdx.z];
  __syncthreads();
  float m[6];
#pragma unroll
  for (int k = 0; k < 6; ++k) m[k] = m_shared[k];
  const int64_t x = int64_t{blockIdx.x} * kTileW + threadIdx.x;
  if (x >= s.out_w) return;
  const int64_t first_row = int64_t{blockIdx.y} * kTileH * kRows + threadIdx.y;
  // 32-bit input offsets where they fit (64-bit integer arithmetic takes several instructions).
  const bool small = s.in_h * s.in_w * s.channels < INT32_MAX;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int64_t y = first_row + r * kTileH;
    if (y >= s.out_h) break;
    if (small) {
      warp_pixel<Out, In, kChannels, int32_t>(s, m, y, x);
    } else {
      warp_pixel<Out, In, kChannels, int64_t>(s, m, y, x);
    }
  }
}

}  // namespace

void warp_gpu(const WarpSample* samples, int num_samples, int64_t max_h, int64_t max_w,
              int channels, DType in_type, DType out_type, void* stream) {
  if (num_samples == 0 || max_h == 0 || max_w == 0) return;
  constexpr int64_t kBlockRows = int64_t{kTileH} * kRows;
  const dim3 grid(static_cast<unsigned>((max_w + kTileW - 1) / kTileW),
                  static_cast<unsigned>((max_h + kBlockRows - 1) / kBlockRows),
                  static_cast<unsigned>(num_samples));
  const dim3 block(kTileW, kTileH);
  auto st = static_cast<cudaStream_t>(stream);
  warp_type_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    if (channels == 3) {
      warp_kernel<Out, In, 3><<<grid, block, 0, st>>>(samples);
    } else if (channels == 1) {
      warp_kernel<Out, In, 1><<<grid, block, 0, st>>>(samples);
    } else {
      warp_kernel<Out, In, 0><<<grid, block, 0, st>>>(samples);
    }
    SLUICE_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace sluice::kernels
