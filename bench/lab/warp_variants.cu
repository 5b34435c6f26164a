// The affine warp at 1080p (bench/gpu_operators.py: Sluice at 0.74x-0.76x DALI's time there):
// whether 32-bit coordinates and reading each row's two taps as 32-bit words make the kernel of
// src/sluice/kernels/geometry/warp_gpu.cu ("v0") faster without changing a bit of its output.
// Variants over a batch of random 1920x1080 RGB UINT8 images (warp_affine's matrix of
// gpu_operators.py, or a rotation by up to +-30 degrees into the fitted size; points outside take
// the fill value, or with CLAMP=1 the border): v0, v1 (every coordinate and bound in 32 bits)
// and v2 (v1, and where all four taps are inside the image, 2 or 3 aligned word loads a row
// instead of 6 byte loads), in a few tile shapes. Every variant's output is compared byte for
// byte with v0's. Prints the best of 5 times and the bytes moved per second against a copy.
// Answered: v2 with tiles of 32 x 4 threads writing 8 rows each, 1.56x (warp_affine) and 1.45x
// (rotate) faster than v0 on the H100; adopted in warp_gpu.cu (bench/lab/README.md).
//
//   nvcc -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -Isrc bench/lab/warp_variants.cu \
//       -o /tmp/warp_variants
//   /tmp/warp_variants [BATCH=256] [ROTATE=0|1] [CLAMP=0|1]
//   ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
//       -k regex:v0 -c 1 /tmp/warp_variants 32
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "sluice/kernels/geometry/warp.h"

using namespace sluice::kernels;
#define CK(x)                                                       \
  do {                                                              \
    cudaError_t e = (x);                                            \
    if (e != cudaSuccess) {                                         \
      printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); \
      exit(1);                                                      \
    }                                                               \
  } while (0)

// v0: the kernel of warp_gpu.cu before (32 x 4 tiles, 4 rows a thread, 32-bit input offsets).
template <int kVariant>
__device__ inline void pixel(const WarpSample& s, const float* m, int y, int x);

template <int kVariant, int kTy = 4, int kRows = 4>
__global__ void tiles(const WarpSample* __restrict__ samples) {
  __shared__ float m_shared[6];
  if (threadIdx.x == 0 && threadIdx.y == 0) warp_matrix(samples[blockIdx.z], m_shared);
  const WarpSample s = samples[blockIdx.z];
  __syncthreads();
  float m[6];
#pragma unroll
  for (int k = 0; k < 6; ++k) m[k] = m_shared[k];
  const int x = blockIdx.x * 32 + threadIdx.x;
  if (x >= s.out_w) return;
  const int first_row = blockIdx.y * kTy * kRows + threadIdx.y;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int y = first_row + r * kTy;
    if (y >= s.out_h) break;
    pixel<kVariant>(s, m, y, x);
  }
}

template <>
__device__ inline void pixel<0>(const WarpSample& s, const float* m, int y, int x) {
  warp_pixel<uint8_t, uint8_t, 3, int32_t>(s, m, y, x);
}

// v1: every coordinate, bound and offset in 32 bits (int64_t compares and products take two or
// more instructions each).
__device__ inline int floor_i32(float v) {
  v = fminf(fmaxf(v, -1073741824.0f), 1073741824.0f);
  return static_cast<int>(floorf(v));
}
__device__ inline const uint8_t* tap32(const WarpSample& s, const uint8_t* in, int y, int x, int h,
                                       int w) {
  if (s.clamp) {
    y = min(max(y, 0), h - 1);
    x = min(max(x, 0), w - 1);
  } else if (static_cast<unsigned>(y) >= static_cast<unsigned>(h) ||
             static_cast<unsigned>(x) >= static_cast<unsigned>(w)) {
    return nullptr;
  }
  return in + (y * w + x) * 3;
}
// 2^23 + byte `c` of `word` as float bits, minus 2^23: the byte as float (one PRMT, one FADD).
__device__ inline float byte_float(uint32_t word, int c) {
  return __fsub_rn(__uint_as_float(__byte_perm(word, 0x4Bu, c | 0x4650)), 8388608.0f);
}
template <bool kWords>
__device__ inline void pixel_i32(const WarpSample& s, const float* m, int y, int x) {
  const uint8_t* in = static_cast<const uint8_t*>(s.in);
  const int h = static_cast<int>(s.in_h), w = static_cast<int>(s.in_w);
  uint8_t* out = static_cast<uint8_t*>(s.out) + (y * static_cast<int>(s.out_w) + x) * 3;
  const float fx = __fadd_rn(static_cast<float>(x), 0.5f), fy = __fadd_rn(static_cast<float>(y), 0.5f);
  const float sx = __fadd_rn(__fadd_rn(__fmul_rn(m[0], fx), __fmul_rn(m[1], fy)), m[2]);
  const float sy = __fadd_rn(__fadd_rn(__fmul_rn(m[3], fx), __fmul_rn(m[4], fy)), m[5]);
  const uint8_t fill_out = round_sat<uint8_t>(s.fill);
  const uint8_t fill_in = round_sat<uint8_t>(static_cast<float>(fill_out));
  const float px = __fsub_rn(sx, 0.5f), py = __fsub_rn(sy, 0.5f);
  const int x0 = floor_i32(px), y0 = floor_i32(py);
  const float qx = __fsub_rn(px, static_cast<float>(x0)), qy = __fsub_rn(py, static_cast<float>(y0));
  const float rx = __fsub_rn(1.0f, qx);
  float v00[3], v01[3], v10[3], v11[3];
  if (kWords && static_cast<unsigned>(x0) < static_cast<unsigned>(w - 1) &&
      static_cast<unsigned>(y0) < static_cast<unsigned>(h - 1)) {
    // Both rows' two taps are 6 bytes each, inside the image: 2 or 3 aligned words a row.
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const uint8_t* p = in + ((y0 + r) * w + x0) * 3;
      const uintptr_t a = reinterpret_cast<uintptr_t>(p);
      const uint32_t* wp = reinterpret_cast<const uint32_t*>(a & ~uintptr_t{3});
      const unsigned k = static_cast<unsigned>(a & 3) * 8;
      const uint32_t w0 = __ldg(wp), w1 = __ldg(wp + 1), w2 = k > 16 ? __ldg(wp + 2) : 0u;
      const uint32_t lo = __funnelshift_r(w0, w1, k), hi = __funnelshift_r(w1, w2, k);
      float* a0 = r ? v10 : v00;
      float* a1 = r ? v11 : v01;
      a0[0] = byte_float(lo, 0);
      a0[1] = byte_float(lo, 1);
      a0[2] = byte_float(lo, 2);
      a1[0] = byte_float(lo, 3);
      a1[1] = byte_float(hi, 0);
      a1[2] = byte_float(hi, 1);
    }
  } else {
    const uint8_t* p00 = tap32(s, in, y0, x0, h, w);
    const uint8_t* p01 = tap32(s, in, y0, x0 + 1, h, w);
    const uint8_t* p10 = tap32(s, in, y0 + 1, x0, h, w);
    const uint8_t* p11 = tap32(s, in, y0 + 1, x0 + 1, h, w);
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      v00[c] = warp_input_float(p00 ? __ldg(p00 + c) : fill_in);
      v01[c] = warp_input_float(p01 ? __ldg(p01 + c) : fill_in);
      v10[c] = warp_input_float(p10 ? __ldg(p10 + c) : fill_in);
      v11[c] = warp_input_float(p11 ? __ldg(p11 + c) : fill_in);
    }
  }
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    const float r0 = __fadd_rn(__fmul_rn(v00[c], rx), __fmul_rn(v01[c], qx));
    const float r1 = __fadd_rn(__fmul_rn(v10[c], rx), __fmul_rn(v11[c], qx));
    out[c] = round_sat<uint8_t>(__fadd_rn(r0, __fmul_rn(__fsub_rn(r1, r0), qy)));
  }
}
template <>
__device__ inline void pixel<1>(const WarpSample& s, const float* m, int y, int x) {
  pixel_i32<false>(s, m, y, x);
}
// v2: v1, and where the four taps are inside the image each row's two taps are read as 32-bit
// words (12 byte loads become 4 to 6 word loads).
template <>
__device__ inline void pixel<2>(const WarpSample& s, const float* m, int y, int x) {
  pixel_i32<true>(s, m, y, x);
}

__global__ void copy_kernel(const uint4* in, uint4* out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

int main(int argc, char** argv) {
  const int N = argc > 1 ? atoi(argv[1]) : 256;
  const int H = 1080, W = 1920, C = 3;
  const bool rotate = argc > 2 && atoi(argv[2]);
  const bool clamp = argc > 3 && atoi(argv[3]);
  const size_t in_bytes = size_t(H) * W * C;
  uint8_t* d_in;
  CK(cudaMalloc(&d_in, in_bytes * N));
  std::vector<uint8_t> h(in_bytes * N);
  uint32_t st = 12345;
  for (auto& v : h) {
    st = st * 1664525u + 1013904223u;
    v = st >> 24;
  }
  CK(cudaMemcpy(d_in, h.data(), h.size(), cudaMemcpyHostToDevice));
  std::vector<WarpSample> ss(N);
  int64_t max_h = 0, max_w = 0;
  size_t out_total = 0;
  std::vector<size_t> out_off(N);
  for (int i = 0; i < N; ++i) {
    WarpSample& s = ss[i];
    s.in_h = H;
    s.in_w = W;
    s.channels = C;
    s.linear = true;
    s.clamp = clamp;
    s.fill = 0;
    if (rotate) {
      float a = (-30.f + 60.f * ((i * 37) % 101) / 100.f) * 3.14159265f / 180.f;
      float c = cosf(a), sn = sinf(a);
      int64_t ow = (int64_t)ceilf(fabsf(W * c) + fabsf(H * sn)),
              oh = (int64_t)ceilf(fabsf(W * sn) + fabsf(H * c));
      s.out_h = oh;
      s.out_w = ow;
      // out -> in: rotate around centres
      s.m[0] = c;
      s.m[1] = sn;
      s.m[3] = -sn;
      s.m[4] = c;
      s.m[2] = W / 2.f - (c * ow / 2.f + sn * oh / 2.f);
      s.m[5] = H / 2.f - (-sn * ow / 2.f + c * oh / 2.f);
    } else {
      s.out_h = H;
      s.out_w = W;
      float m[6] = {0.9f, 0.2f, 10.0f, -0.15f, 1.1f, -5.0f};
      memcpy(s.m, m, sizeof m);
    }
    max_h = std::max(max_h, s.out_h);
    max_w = std::max(max_w, s.out_w);
    out_off[i] = out_total;
    out_total += size_t(s.out_h) * s.out_w * C;
  }
  uint8_t *d_out0, *d_out1;
  CK(cudaMalloc(&d_out0, out_total));
  CK(cudaMalloc(&d_out1, out_total));
  auto upload = [&](uint8_t* out) {
    for (int i = 0; i < N; ++i) {
      ss[i].in = d_in + in_bytes * i;
      ss[i].out = out + out_off[i];
    }
    WarpSample* d;
    CK(cudaMalloc(&d, sizeof(WarpSample) * N));
    CK(cudaMemcpy(d, ss.data(), sizeof(WarpSample) * N, cudaMemcpyHostToDevice));
    return d;
  };
  WarpSample* ds0 = upload(d_out0);
  WarpSample* ds1 = upload(d_out1);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto time = [&](const char* name, auto launch, bool compare) {
    CK(cudaMemset(d_out1, 0x5A, out_total));
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float best = 1e9;
    for (int r = 0; r < 5; ++r) {
      cudaEventRecord(e0);
      launch();
      cudaEventRecord(e1);
      CK(cudaEventSynchronize(e1));
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      best = std::min(best, ms);
    }
    const char* eq = "";
    if (compare) {
      std::vector<uint8_t> a(out_total), b(out_total);
      CK(cudaMemcpy(a.data(), d_out0, out_total, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(b.data(), d_out1, out_total, cudaMemcpyDeviceToHost));
      eq = memcmp(a.data(), b.data(), out_total) == 0 ? "  identical to v0" : "  DIFFERS from v0";
    }
    printf("%-28s %8.3f ms  %7.1f GB/s (in+out)%s\n", name, best,
           (in_bytes * N + out_total) / best / 1e6, eq);
  };
  printf("%s%s batch %d of %dx%dx%d -> max %lldx%lld\n", rotate ? "rotate" : "warp_affine",
         clamp ? " (clamp)" : " (fill)", N, W, H, C, (long long)max_w, (long long)max_h);
  time(
      "copy (in->out, bandwidth)",
      [&] {
        copy_kernel<<<132 * 8, 256>>>((const uint4*)d_in, (uint4*)d_out1,
                                      std::min(in_bytes * N, out_total) / 16);
      },
      false);
#define TILES(NAME, V, TY, ROWS, OUT)                                              \
  time(                                                                            \
      NAME,                                                                        \
      [&] {                                                                        \
        tiles<V, TY, ROWS><<<dim3((max_w + 31) / 32, (max_h + TY * ROWS - 1) / (TY * ROWS), N), \
                             dim3(32, TY)>>>(OUT);                                 \
      },                                                                           \
      OUT == ds1)
  TILES("v0 (warp_gpu.cu before)", 0, 4, 4, ds0);
  TILES("v0 again into out1", 0, 4, 4, ds1);
  TILES("v1 32-bit coordinates", 1, 4, 4, ds1);
  TILES("v2 v1 + word loads", 2, 4, 4, ds1);
  TILES("v2 32x8 rows 2", 2, 8, 2, ds1);
  TILES("v2 32x4 rows 8", 2, 4, 8, ds1);
  return 0;
}
