#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/slice/slice_dispatch.h"
#include "sluice/kernels/slice/slice_kernel.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kItems = 4;  // elements per thread

// blockIdx.y: the sample. Each thread maps its output elements back through the border rule.
template <typename Out, typename In>
__global__ void slice_kernel(const SliceDesc* descs, SliceBorder border) {
  const SliceDesc& d = descs[blockIdx.y];
  int64_t n = 1;
  for (int k = 0; k < d.ndim; ++k) n *= d.out_shape[k];
  const In* in = static_cast<const In*>(d.in);
  const Out* fill = static_cast<const Out*>(d.fill);
  Out* out = static_cast<Out*>(d.out);
  const int64_t first = (int64_t{blockIdx.x} * kThreads * kItems) + threadIdx.x;
#pragma unroll
  for (int it = 0; it < kItems; ++it) {
    const int64_t i = first + int64_t{it} * kThreads;
    if (i >= n) break;
    int64_t rest = i, off = 0, stride = 1, channel = 0;
    bool filled = false;
    for (int k = d.ndim - 1; k >= 0; --k) {
      const int64_t o = rest % d.out_shape[k];
      rest /= d.out_shape[k];
      if (k == d.channel_dim) channel = o;
      const int64_t s = slice_border_index(d.anchor[k] + o, d.in_shape[k], border);
      filled |= s < 0;
      off += s * stride;
      stride *= d.in_shape[k];
    }
    out[i] = filled ? fill[channel] : slice_convert<Out>(in[off]);
  }
}

}  // namespace

void slice_gpu(const SliceDesc* descs, int num_samples, int64_t max_n, DType in_type,
               DType out_type, SliceBorder border, void* stream) {
  if (num_samples == 0 || max_n == 0) return;
  const dim3 grid = batch_grid(num_samples, max_n, int64_t{kThreads} * kItems);
  slice_dispatch(in_type, out_type, [&](auto out_tag, auto in_tag) {
    using Out = typename decltype(out_tag)::type;
    using In = typename decltype(in_tag)::type;
    slice_kernel<Out, In><<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(descs, border);
    SLUICE_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace sluice::kernels
