#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/convolution/convolution_dispatch.h"
#include "sluice/kernels/convolution/convolution_element.h"
#include "sluice/kernels/convolution/convolution_gpu.h"

namespace sluice::kernels::conv {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kElementsPerBlock = int64_t{kThreads} * 4;

// blockIdx.y is the sample; the blocks of a sample stride over its output elements.
template <typename Out, typename In>
__global__ void convolve_kernel(const AxisPass* passes) {
  const AxisPass p = passes[blockIdx.y];
  const int64_t total = p.outer * p.extent * p.inner;
  if (total <= INT32_MAX) {  // 32-bit division is several times cheaper than 64-bit
    const uint32_t inner = static_cast<uint32_t>(p.inner), extent = static_cast<uint32_t>(p.extent);
    for (uint32_t e = blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += gridDim.x * blockDim.x) {
      const uint32_t i = e % inner, ox = e / inner;
      convolve_element<Out, In>(p, ox / extent, ox % extent, i);
    }
    return;
  }
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = e % p.inner, ox = e / p.inner;
    convolve_element<Out, In>(p, ox / p.extent, ox % p.extent, i);
  }
}

}  // namespace

void convolve_axis_gpu(const AxisPass* passes, int num_samples, int64_t max_elements, DType in_type,
                       DType out_type, void* stream) {
  if (num_samples == 0 || max_elements == 0) return;
  const dim3 grid = batch_grid(num_samples, max_elements, kElementsPerBlock, 65535);
  auto st = static_cast<cudaStream_t>(stream);
  conv_pass_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    convolve_kernel<Out, In><<<grid, kThreads, 0, st>>>(passes);
    SLUICE_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace sluice::kernels::conv
