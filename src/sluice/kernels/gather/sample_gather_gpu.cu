#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/gather/sample_gather.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWords = 4;  // 16-byte words per thread and block step
constexpr int64_t kBlockBytes = int64_t{kThreads} * kWords * 16;

// Block (x, y) copies bytes [x * kBlockBytes, (x + 1) * kBlockBytes) of copy y: in 16-byte words
// when both ends are 16-byte aligned (batches are, sample by sample), else byte by byte.
__global__ void copy_samples_kernel(const SampleCopy* copies) {
  const SampleCopy c = copies[blockIdx.y];
  const int64_t begin = int64_t{blockIdx.x} * kBlockBytes;
  if (begin >= c.bytes) return;
  const int64_t end = begin + kBlockBytes < c.bytes ? begin + kBlockBytes : c.bytes;
  auto* dst = static_cast<unsigned char*>(c.dst);
  const auto* src = static_cast<const unsigned char*>(c.src);
  const bool aligned =
      ((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 15) == 0;
  int64_t i = begin;
  if (aligned) {
    const int64_t words_end = begin + ((end - begin) / 16) * 16;
    for (int64_t w = begin + int64_t{threadIdx.x} * 16; w < words_end;
         w += int64_t{kThreads} * 16) {
      *reinterpret_cast<uint4*>(dst + w) = *reinterpret_cast<const uint4*>(src + w);
    }
    i = words_end;
  }
  for (int64_t b = i + threadIdx.x; b < end; b += kThreads) dst[b] = src[b];
}

}  // namespace

void copy_samples_gpu(const SampleCopy* copies, int num_copies, int64_t max_bytes, void* stream) {
  if (num_copies == 0 || max_bytes == 0) return;
  const dim3 grid = batch_grid(num_copies, max_bytes, kBlockBytes);
  copy_samples_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(copies);
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
