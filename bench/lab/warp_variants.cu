// The affine warp at 1080p (bench/gpu_operators.py: Sluice at 0.6x DALI's time there): which
// block shape and which output rounding make the kernel of src/sluice/kernels/geometry/warp_gpu.cu
// as it was ("v0", one row of 256 pixels a block) faster, without changing a bit of its output.
// Answered: 32 x 4 tiles of 4 rows and the fast rounding, both adopted (bench/lab/README.md). Variants of that kernel over a batch of random
// 1920x1080 RGB UINT8 images (warp_affine's matrix of gpu_operators.py, or a rotation by up to
// +-30 degrees into the fitted size): the kernel as it is ("v0"), 2D tiles of 32 x TY threads each
// doing ROWS rows, and either with the UINT8 rounding done by two round-toward-zero additions
// instead of roundf and a conversion (both are floor(v + 0.5) for v in [0, 255]). Every variant's
// output is compared byte for byte with v0's. Prints the best of 5 times and the bytes moved per
// second against a plain device copy.
//
//   nvcc -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -Isrc bench/lab/warp_variants.cu \
//       -o /tmp/warp_variants
//   /tmp/warp_variants [BATCH=256] [ROTATE=0|1]
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

// floor(v + 0.5) of v clamped to [0, 255] (NaN: 0), as round_sat<uint8_t>: v + 0.5 rounded
// toward zero keeps its floor, and adding 2^23 toward zero leaves that floor in the low bits.
__device__ inline uint8_t round_u8_fast(float v) {
  v = fminf(fmaxf(v, 0.0f), 255.0f);
  return static_cast<uint8_t>(__float_as_uint(__fadd_rz(__fadd_rz(v, 0.5f), 8388608.0f)) -
                              0x4B000000u);
}

// warp_pixel for UINT8 RGB, linear, with round_u8_fast.
__device__ inline void warp_pixel_fast(const WarpSample& s, const float* m, int64_t y, int64_t x) {
  const uint8_t* in = static_cast<const uint8_t*>(s.in);
  uint8_t* out = static_cast<uint8_t*>(s.out) + (y * s.out_w + x) * 3;
  const float fx = __fadd_rn(static_cast<float>(x), 0.5f),
              fy = __fadd_rn(static_cast<float>(y), 0.5f);
  const float sx = __fadd_rn(__fadd_rn(__fmul_rn(m[0], fx), __fmul_rn(m[1], fy)), m[2]);
  const float sy = __fadd_rn(__fadd_rn(__fmul_rn(m[3], fx), __fmul_rn(m[4], fy)), m[5]);
  const uint8_t fill_in = round_sat<uint8_t>(static_cast<float>(round_sat<uint8_t>(s.fill)));
  const float px = __fsub_rn(sx, 0.5f), py = __fsub_rn(sy, 0.5f);
  const int64_t x0 = floor_index(px), y0 = floor_index(py);
  const float qx = __fsub_rn(px, static_cast<float>(x0)),
              qy = __fsub_rn(py, static_cast<float>(y0));
  const float rx = __fsub_rn(1.0f, qx);
  const uint8_t* p00 = warp_tap<int32_t>(s, in, y0, x0, 3);
  const uint8_t* p01 = warp_tap<int32_t>(s, in, y0, x0 + 1, 3);
  const uint8_t* p10 = warp_tap<int32_t>(s, in, y0 + 1, x0, 3);
  const uint8_t* p11 = warp_tap<int32_t>(s, in, y0 + 1, x0 + 1, 3);
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    const float s00 = warp_input_float(p00 ? __ldg(p00 + c) : fill_in);
    const float s01 = warp_input_float(p01 ? __ldg(p01 + c) : fill_in);
    const float s10 = warp_input_float(p10 ? __ldg(p10 + c) : fill_in);
    const float s11 = warp_input_float(p11 ? __ldg(p11 + c) : fill_in);
    const float r0 = __fadd_rn(__fmul_rn(s00, rx), __fmul_rn(s01, qx));
    const float r1 = __fadd_rn(__fmul_rn(s10, rx), __fmul_rn(s11, qx));
    out[c] = round_u8_fast(__fadd_rn(r0, __fmul_rn(__fsub_rn(r1, r0), qy)));
  }
}

constexpr int kBlock = 256;
constexpr int kItems = 4;

template <typename Out, typename In, int kChannels>
__global__ void v0(const WarpSample* __restrict__ samples) {
  __shared__ float m_shared[6];
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
  const bool small = s.in_h * s.in_w * s.channels < INT32_MAX;
  for (int it = 0; it < kItems && p < pixels; ++it, p += kBlock) {
    if (small)
      warp_pixel<Out, In, kChannels, int32_t>(s, m, y, x);
    else
      warp_pixel<Out, In, kChannels, int64_t>(s, m, y, x);
    x += kBlock;
    while (x >= s.out_w) {
      x -= s.out_w;
      ++y;
    }
  }
}

// 2D tiles: block (32, kTy), each thread kRows rows kTy apart.
template <typename Out, typename In, int kChannels, int kTy, int kRows, bool kFast>
__global__ void v2d(const WarpSample* __restrict__ samples) {
  __shared__ float m_shared[6];
  if (threadIdx.x == 0 && threadIdx.y == 0) warp_matrix(samples[blockIdx.z], m_shared);
  const WarpSample s = samples[blockIdx.z];
  __syncthreads();
  float m[6];
#pragma unroll
  for (int k = 0; k < 6; ++k) m[k] = m_shared[k];
  const int64_t x = int64_t{blockIdx.x} * 32 + threadIdx.x;
  if (x >= s.out_w) return;
  const int64_t y0 = int64_t{blockIdx.y} * kTy * kRows + threadIdx.y;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int64_t y = y0 + r * kTy;
    if (y >= s.out_h) break;
    if constexpr (kFast) {
      warp_pixel_fast(s, m, y, x);
    } else {
      warp_pixel<Out, In, kChannels, int32_t>(s, m, y, x);
    }
  }
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
    s.clamp = false;
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
  const int64_t pixels = max_h * max_w;
  const int64_t per_block = int64_t{kBlock} * kItems;
  printf("%s batch %d of %dx%dx%d -> max %lldx%lld\n", rotate ? "rotate" : "warp_affine", N, W, H,
         C, (long long)max_w, (long long)max_h);
  time(
      "copy (in->out, bandwidth)",
      [&] {
        copy_kernel<<<132 * 8, 256>>>((const uint4*)d_in, (uint4*)d_out1,
                                      std::min(in_bytes * N, out_total) / 16);
      },
      false);
  time(
      "v0 (current)",
      [&] {
        v0<uint8_t, uint8_t, 3><<<dim3((pixels + per_block - 1) / per_block, N), kBlock>>>(ds0);
      },
      false);
  time(
      "v0 again into out1",
      [&] {
        v0<uint8_t, uint8_t, 3><<<dim3((pixels + per_block - 1) / per_block, N), kBlock>>>(ds1);
      },
      true);
#define T2D(TY, ROWS, FAST)                                                                        \
  time(                                                                                            \
      (std::string("2d 32x" #TY " rows " #ROWS) + (FAST ? " fast" : "")).c_str(),                  \
      [&] {                                                                                        \
        v2d<uint8_t, uint8_t, 3, TY, ROWS, FAST>                                                   \
            <<<dim3((max_w + 31) / 32, (max_h + TY * ROWS - 1) / (TY * ROWS), N), dim3(32, TY)>>>( \
                ds1);                                                                              \
      },                                                                                           \
      true)
  T2D(8, 1, false);
  T2D(8, 4, false);
  T2D(4, 4, false);
  T2D(16, 2, false);
  T2D(8, 8, false);
  T2D(2, 8, false);
  T2D(8, 1, true);
  T2D(8, 4, true);
  T2D(4, 4, true);
  T2D(16, 2, true);
  return 0;
}
