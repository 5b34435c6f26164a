#include <cuda_runtime.h>

#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/geometry/coord_transform_gpu.h"

namespace sluice::kernels {
namespace {

constexpr int kBlock = 256;

template <typename Out, typename In>
__global__ void coord_transform_kernel(const CoordTransformGpuSample* __restrict__ samples) {
  const CoordTransformGpuSample& s = samples[blockIdx.y];
  const In* in = static_cast<const In*>(s.in);
  Out* out = static_cast<Out*>(s.out);
  for (int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; p < s.num_points;
       p += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    transform_point<Out, In>(s.params, in + p * s.params.in_dim, out + p * s.params.out_dim);
  }
}

}  // namespace

void coord_transform_gpu(const CoordTransformGpuSample* samples, int num_samples,
                         int64_t max_points, DType in_type, DType out_type, void* stream) {
  if (num_samples == 0 || max_points == 0) return;
  const dim3 grid = batch_grid(num_samples, max_points, kBlock, 1024);
  coord_transform_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    coord_transform_kernel<Out, In>
        <<<grid, kBlock, 0, static_cast<cudaStream_t>(stream)>>>(samples);
    SLUICE_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace sluice::kernels
