#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/normalize/normalize.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocksX = 8192;

template <typename Out, typename In>
__global__ void normalize_kernel(const NormalizeSampleGpu* samples, float shift) {
  const NormalizeSampleGpu& s = samples[blockIdx.y];
  const In* in = static_cast<const In*>(s.in);
  Out* out = static_cast<Out*>(s.out);
  for (int64_t i = int64_t{blockIdx.x} * kThreads + threadIdx.x; i < s.g.volume;
       i += int64_t{gridDim.x} * kThreads) {
    const int64_t p = normalize_param_index(s.g, i);
    out[i] = normalize_convert<Out>(
        normalize_value(static_cast<float>(in[i]), s.mean[p], s.inv[p], shift));
  }
}

__global__ void fold_kernel(const NormalizeFold* folds, NormalizeFoldParams params) {
  const NormalizeFold& f = folds[blockIdx.y];
  for (int64_t p = int64_t{blockIdx.x} * kThreads + threadIdx.x; p < f.size;
       p += int64_t{gridDim.x} * kThreads) {
    f.out[p] = normalize_fold_value(f.parts, f.num_parts, p, params);
  }
}

}  // namespace

void normalize_gpu(const NormalizeSampleGpu* samples, int num_samples, int64_t max_volume,
                   DType out_type, DType in_type, float shift, void* stream) {
  if (num_samples == 0 || max_volume == 0) return;
  const dim3 grid = batch_grid(num_samples, max_volume, kThreads, kMaxBlocksX);
  normalize_type_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    normalize_kernel<Out, In>
        <<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(samples, shift);
  });
  SLUICE_CUDA_CHECK_LAUNCH();
}

void normalize_fold_gpu(const NormalizeFold* folds, int num_folds, int64_t max_size,
                        const NormalizeFoldParams& params, void* stream) {
  if (num_folds == 0 || max_size == 0) return;
  const dim3 grid = batch_grid(num_folds, max_size, kThreads, kMaxBlocksX);
  fold_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(folds, params);
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
