#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/elementwise/elementwise_gpu.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kItems = 4;  // elements per thread

dim3 grid_for(int num_samples, int64_t max_n) {
  int64_t per_block = int64_t{kThreads} * kItems;
  int64_t bx = (max_n + per_block - 1) / per_block;
  return dim3(static_cast<unsigned>(bx > 0 ? bx : 1), static_cast<unsigned>(num_samples));
}

__global__ void cast_kernel(const ElementwiseSample* samples, DType to, DType from) {
  const ElementwiseSample s = samples[blockIdx.y];
  int64_t base = (int64_t{blockIdx.x} * kThreads * kItems) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    int64_t i = base + int64_t{k} * kThreads;
    if (i < s.n) convert_element(s.out, to, s.a, from, i);
  }
}

__global__ void arith_kernel(ArithParams p, const ElementwiseSample* samples) {
  const ElementwiseSample s = samples[blockIdx.y];
  int64_t base = (int64_t{blockIdx.x} * kThreads * kItems) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    int64_t i = base + int64_t{k} * kThreads;
    if (i < s.n) {
      arith_element(p.op, p.compute, p.result, s.out, i, s.a, p.ta, i * s.a_step, s.b, p.tb,
                    i * s.b_step, p.scalar, p.b_is_scalar, p.scalar_left);
    }
  }
}

}  // namespace

void cast_gpu(const ElementwiseSample* samples, int num_samples, int64_t max_n, DType to,
              DType from, void* stream) {
  if (num_samples == 0 || max_n == 0) return;
  cast_kernel<<<grid_for(num_samples, max_n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      samples, to, from);
  SLUICE_CUDA_CHECK_LAUNCH();
}

void arithmetic_gpu(const ArithParams& p, const ElementwiseSample* samples, int num_samples,
                    int64_t max_n, void* stream) {
  if (num_samples == 0 || max_n == 0) return;
  arith_kernel<<<grid_for(num_samples, max_n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      p, samples);
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
