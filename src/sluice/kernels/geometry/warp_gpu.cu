#include <cuda_runtime.h>

#include <algorithm>

#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/geometry/warp_gpu.h"

namespace sluice::kernels {
namespace {

constexpr int kBlock = 256;

template <typename Out, typename In>
__global__ void warp_kernel(const WarpSample* __restrict__ samples) {
  const WarpSample& s = samples[blockIdx.y];
  float m[6];
  warp_matrix(s, m);
  const int64_t pixels = s.out_h * s.out_w;
  for (int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; p < pixels;
       p += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    warp_pixel<Out, In>(s, m, p / s.out_w, p % s.out_w);
  }
}

}  // namespace

void warp_gpu(const WarpSample* samples, int num_samples, int64_t max_pixels, DType in_type,
              DType out_type, void* stream) {
  if (num_samples == 0 || max_pixels == 0) return;
  const int64_t blocks = std::clamp<int64_t>((max_pixels + kBlock - 1) / kBlock, 1, 4096);
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(num_samples));
  warp_type_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    warp_kernel<Out, In><<<grid, kBlock, 0, static_cast<cudaStream_t>(stream)>>>(samples);
    SLUICE_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace sluice::kernels
