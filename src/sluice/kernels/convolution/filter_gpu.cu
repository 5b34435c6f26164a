#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/convolution/filter.h"
#include "sluice/kernels/convolution/filter_element.h"

namespace sluice::kernels::conv {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kElementsPerBlock = int64_t{kThreads} * 4;

// blockIdx.y is the sample; the blocks of a sample stride over its output elements.
template <typename Out, typename In>
__global__ void filter_kernel(const FilterSample* samples) {
  const FilterSample s = samples[blockIdx.y];
  const int64_t total = s.out_volume();
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total;
       e += int64_t{gridDim.x} * blockDim.x) {
    filter_element<Out, In>(s, e);
  }
}

}  // namespace

void filter_gpu(const FilterSample* samples, int num_samples, int64_t max_elements, DType in_type,
                DType out_type, void* stream) {
  if (num_samples == 0 || max_elements == 0) return;
  const dim3 grid = batch_grid(num_samples, max_elements, kElementsPerBlock, 65535);
  auto st = static_cast<cudaStream_t>(stream);
  filter_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    filter_kernel<Out, In><<<grid, kThreads, 0, st>>>(samples);
    SLUICE_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace sluice::kernels::conv
