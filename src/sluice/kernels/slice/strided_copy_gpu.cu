#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/slice/strided_copy.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;

// Elements per thread: more for bytes, which are also copied four to a 32-bit store.
template <typename T>
constexpr int kItems = sizeof(T) == 1 ? 16 : 4;

// T: an unsigned integer of the element's size (the copy moves bits). Block x copies elements
// [x, x + 1) * kThreads * kItems of sample y (blockIdx.y). Up to three dimensions (most copies,
// after merging) a thread finds its element's coordinates with divisions once and then steps
// along; more take the divisions per element.
template <typename T>
__global__ void strided_copy_kernel(const StridedCopyDesc* __restrict__ descs) {
  const StridedCopyDesc* d = descs + blockIdx.y;
  const int nd = d->ndim;
  const T* in = static_cast<const T*>(d->in);
  T* out = static_cast<T*>(d->out);
  const int64_t per_block = int64_t{kThreads} * kItems<T>;
  if (nd <= 3) {
    const int64_t n2 = d->shape[nd - 1], s2 = d->stride[nd - 1];
    const int64_t n1 = nd >= 2 ? d->shape[nd - 2] : 1, s1 = nd >= 2 ? d->stride[nd - 2] : 0;
    const int64_t n0 = nd >= 3 ? d->shape[0] : 1, s0 = nd >= 3 ? d->stride[0] : 0;
    const int64_t n = n0 * n1 * n2;
    // Bytes in rows of whole 32-bit words go a word at a time (no word spans two rows).
    const bool words =
        sizeof(T) == 1 && s2 == 1 && n2 % 4 == 0 && (reinterpret_cast<uintptr_t>(out) & 3) == 0;
    const int width = words ? 4 : 1;
    int64_t i = int64_t{blockIdx.x} * per_block + int64_t{threadIdx.x} * width;
    if (i >= n) return;
    const int64_t end = min(int64_t{blockIdx.x + 1} * per_block, n);
    const int64_t q = i / n2;
    int64_t j = i - q * n2, i0 = q / n1, i1 = q - i0 * n1;
    for (; i < end; i += int64_t{kThreads} * width) {
      const T* src = in + i0 * s0 + i1 * s1 + j * s2;
      if constexpr (sizeof(T) == 1) {
        if (words) {
          *reinterpret_cast<uint32_t*>(out + i) = uint32_t{src[0]} | uint32_t{src[1]} << 8 |
                                                  uint32_t{src[2]} << 16 | uint32_t{src[3]} << 24;
        } else {
          out[i] = *src;
        }
      } else {
        out[i] = *src;
      }
      j += kThreads * width;
      while (j >= n2) {
        j -= n2;
        if (++i1 == n1) {
          i1 = 0;
          ++i0;
        }
      }
    }
    return;
  }
  int64_t n = 1;
  for (int k = 0; k < nd; ++k) n *= d->shape[k];
  int64_t i = int64_t{blockIdx.x} * per_block + threadIdx.x;
  for (int it = 0; it < kItems<T>; ++it, i += kThreads) {
    if (i >= n) break;
    int64_t rest = i, off = 0;
    for (int k = nd - 1; k > 0; --k) {
      off += (rest % d->shape[k]) * d->stride[k];
      rest /= d->shape[k];
    }
    off += rest * d->stride[0];
    out[i] = in[off];
  }
}

template <typename T>
void launch(const StridedCopyDesc* descs, int num_samples, int64_t max_n, void* stream) {
  const dim3 grid = batch_grid(num_samples, max_n, int64_t{kThreads} * kItems<T>);
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
