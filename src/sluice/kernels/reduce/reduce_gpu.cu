#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/reduce/reduce_gpu.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocksX = 4096;

// A group of `group` threads (a power of two) reduces one output element: each sums a strided
// share of its inputs, then the group combines its partial results in shared memory.
template <typename Out, typename In>
__global__ void reduce_kernel(ReduceOp op, const ReduceSampleGpu* samples, int group, int ddof) {
  using Acc = ReduceAcc<Out>;
  __shared__ Acc partial[kThreads];
  const ReduceSampleGpu& s = samples[blockIdx.y];
  const ReduceGeometry& g = s.g;
  const In* in = static_cast<const In*>(s.in);
  Out* out = static_cast<Out*>(s.out);
  const int lane = threadIdx.x % group;
  const int per_block = kThreads / group;
  // The loop bound is the same for the whole block, so every thread reaches the barriers.
  for (int64_t first = int64_t{blockIdx.x} * per_block; first < g.out_volume;
       first += int64_t{gridDim.x} * per_block) {
    const int64_t o = first + threadIdx.x / group;
    Acc acc = reduce_neutral<Acc>(op);
    if (o < g.out_volume && g.reduced_volume > 0) {
      const In* base = in + reduce_base_offset(g, o);
      const float m = s.mean ? s.mean[o] : 0.0f;
      // Eight loads are issued before they are combined (in the same order as one at a time):
      // with one in flight per thread the loop waited on memory latency.
      constexpr int kUnroll = 8;
      int64_t r = lane;
      for (; r + (kUnroll - 1) * int64_t{group} < g.reduced_volume; r += kUnroll * group) {
        In v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) v[u] = base[reduce_inner_offset(g, r + u * group)];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
          acc = reduce_combine(op, acc, reduce_pre<Acc>(op, v[u], m));
      }
      for (; r < g.reduced_volume; r += group) {
        acc = reduce_combine(op, acc, reduce_pre<Acc>(op, base[reduce_inner_offset(g, r)], m));
      }
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int step = group / 2; step > 0; step /= 2) {
      if (lane < step) {
        partial[threadIdx.x] =
            reduce_combine(op, partial[threadIdx.x], partial[threadIdx.x + step]);
      }
      __syncthreads();
    }
    if (lane == 0 && o < g.out_volume) {
      out[o] = reduce_post<Out>(op, partial[threadIdx.x], g.reduced_volume, ddof);
    }
    __syncthreads();
  }
}

}  // namespace

void reduce_gpu(ReduceOp op, const ReduceSampleGpu* samples, int num_samples, int64_t max_out,
                int64_t max_reduced, DType out_type, DType in_type, int ddof, void* stream) {
  if (num_samples == 0 || max_out == 0) return;
  // Enough threads per output element to give each a few inputs, at most a block.
  int group = 1;
  while (group < kThreads && int64_t{group} * 4 < max_reduced) group *= 2;
  const int64_t per_block = kThreads / group;
  const dim3 grid = batch_grid(num_samples, max_out, per_block, kMaxBlocksX);
  reduce_type_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    reduce_kernel<Out, In>
        <<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(op, samples, group, ddof);
  });
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
