#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/geometry/warp_gpu.h"

namespace sluice::kernels {
namespace {

// A block is kTileW x kTileH threads; each thread writes kRows pixels of a column, kTileH rows
// apart. 2D tiles read the input where neighbouring output pixels map to neighbouring input
// (bench/lab/warp_variants.cu, bench/RESULTS.md#vs-dali-operators).
constexpr int kTileW = 32;
constexpr int kTileH = 4;
constexpr int kRows = 8;

// Byte `c` of `word` as float: 2^23 + the byte as float bits (one byte permute), minus 2^23.
__device__ inline float byte_float(uint32_t word, int c) {
  return __fsub_rn(__uint_as_float(__byte_perm(word, 0x4Bu, c | 0x4650)), 8388608.0f);
}

// The six bytes at `p` (two RGB pixels) from the two or three aligned words holding them: the
// twelve byte loads of a linear RGB tap pair become four to six word loads, 1.4-1.5x faster at
// 1080p. Every word read holds one of the six bytes, so nothing past the image is touched.
__device__ inline void load_rgb_pair(const uint8_t* p, float* a, float* b) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  const uint32_t* w = reinterpret_cast<const uint32_t*>(addr & ~uintptr_t{3});
  const unsigned shift = static_cast<unsigned>(addr & 3) * 8;
  const uint32_t w0 = __ldg(w), w1 = __ldg(w + 1), w2 = shift > 16 ? __ldg(w + 2) : 0u;
  const uint32_t lo = __funnelshift_r(w0, w1, shift), hi = __funnelshift_r(w1, w2, shift);
  a[0] = byte_float(lo, 0);
  a[1] = byte_float(lo, 1);
  a[2] = byte_float(lo, 2);
  b[0] = byte_float(lo, 3);
  b[1] = byte_float(hi, 0);
  b[2] = byte_float(hi, 1);
}

// warp_pixel for linear UINT8 RGB with 32-bit offsets, the same operations in the same order;
// where the four taps are inside the image they are read as words.
__device__ inline void warp_pixel_rgb8(const WarpSample& s, const float* m, int y, int x) {
  const int h = static_cast<int>(s.in_h), w = static_cast<int>(s.in_w);
  float sx, sy;
  warp_source(m, y, x, sx, sy);
  const WarpLinear<int> l(sx, sy);
  uint8_t* out = static_cast<uint8_t*>(s.out) + (y * static_cast<int>(s.out_w) + x) * 3;
  if (l.x0 < 0 || l.x0 + 1 >= w || l.y0 < 0 || l.y0 + 1 >= h) {
    constexpr int kNear = 1 << 22;  // within it the weights are exact to a few ulps
    if (!s.clamp && (l.x0 < -1 || l.x0 >= w || l.y0 < -1 || l.y0 >= h) && l.x0 > -kNear &&
        l.x0 < kNear && l.y0 > -kNear && l.y0 < kNear) {
      // All four taps outside, not far off (nor NaN): the weights of four equal fill values
      // sum to it within 2^-14, so warp_pixel rounds to the fill value too (half of a
      // rotation's fitted output).
      out[0] = out[1] = out[2] = round_sat<uint8_t>(s.fill);
    } else {
      warp_pixel<uint8_t, uint8_t, 3, int>(s, m, y, x);  // a border: some taps outside
    }
    return;
  }
  const uint8_t* in = static_cast<const uint8_t*>(s.in) + (l.y0 * w + l.x0) * 3;
  float v00[3], v01[3], v10[3], v11[3];
  load_rgb_pair(in, v00, v01);
  load_rgb_pair(in + w * 3, v10, v11);
#pragma unroll
  for (int c = 0; c < 3; ++c) out[c] = round_sat<uint8_t>(l.at(v00[c], v01[c], v10[c], v11[c]));
}

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
  // 32-bit coordinates and offsets where they fit.
  const bool small =
      s.in_h * s.in_w * s.channels < INT32_MAX && s.out_h * s.out_w * s.channels < INT32_MAX;
  constexpr bool kRgb8 =
      kChannels == 3 && std::is_same_v<In, uint8_t> && std::is_same_v<Out, uint8_t>;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int64_t y = first_row + r * kTileH;
    if (y >= s.out_h) break;
    if (!small) {
      warp_pixel<Out, In, kChannels, int64_t>(s, m, y, x);
    } else if (kRgb8 && s.linear) {
      warp_pixel_rgb8(s, m, static_cast<int>(y), static_cast<int>(x));
    } else {
      warp_pixel<Out, In, kChannels, int>(s, m, static_cast<int>(y), static_cast<int>(x));
    }
  }
}

}  // namespace

void warp_gpu(const WarpSample* samples, int num_samples, int64_t max_h, int64_t max_w,
              int channels, DType in_type, DType out_type, void* stream) {
  if (num_samples == 0 || max_h == 0 || max_w == 0) return;
  constexpr int64_t kBlockRows = int64_t{kTileH} * kRows;
  const dim3 grid(static_cast<unsigned>(blocks_for(max_w, kTileW)),
                  static_cast<unsigned>(blocks_for(max_h, kBlockRows)),
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
