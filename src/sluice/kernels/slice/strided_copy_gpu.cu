#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/slice/strided_copy.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kItems = 4;  // elements per thread

// T: an unsigned integer of the element's size (the copy moves bits).
template <typename T>
__global__ void strided_copy_kernel(const StridedCopyDesc* descs) {
  const StridedCopyDesc& d = descs[blockIdx.y];
  int64_t n = 1;
  for (int k = 0; k < d.ndim; ++k) n *= d.shape[k];
  const T* in = static_cast<const T*>(d.in);
  T* out = static_cast<T*>(d.out);
  const int64_t first = (int64_t{blockIdx.x} * kThreads * kItems) + threadIdx.x;
#pragma unroll
  for (int it = 0; it < kItems; ++it) {
    const int64_t i = first + int64_t{it} * kThreads;
    if (i >= n) break;
    int64_t rest = i, off = 0;
    for (int k = d.ndim - 1; k > 0; --k) {
      off += (rest % d.shape[k]) * d.stride[k];
      rest /= d.shape[k];
    }
    off += rest * d.stride[0];
    out[i] = in[off];
  }
}

template <typename T>
void launch(const StridedCopyDesc* descs, int num_samples, int64_t max_n, void* stream) {
  const int64_t per_block = int64_t{kThreads} * kItems;
  const dim3 grid(static_cast<unsigned>((max_n + per_block - 1) / per_block),
                  static_cast<unsigned>(num_samples));
  strided_copy_kernel<T><<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(descs);
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace

void strided_copy_gpu(const StridedCopyDesc* descs, int num_samples, int64_t max_n,
                      size_t elem_size, void* stream) {
  if (num_samples == 0 || max_n == 0) return;
  switch (elem_size) {
    case 1:
      return launch<uint8_t>(descs, num_samples, max_n, stream);
    case 2:
      return launch<uint16_t>(descs, num_samples, max_n, stream);
    case 4:
      return launch<uint32_t>(descs, num_samples, max_n, stream);
    default:
      return launch<uint64_t>(descs, num_samples, max_n, stream);
  }
}

}  // namespace sluice::kernels
