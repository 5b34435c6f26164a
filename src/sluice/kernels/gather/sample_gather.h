#pragma once
// Copies whole samples from one batch into another, in any order: the split of a batch into the
// samples of two conditional branches and their merge back into one. Each copy is a contiguous
// run of bytes; the CPU function is the reference of the CUDA one.

#include <cstdint>

namespace sluice::kernels {

struct SampleCopy {
  void* dst;
  const void* src;
  int64_t bytes;
};

// Copies one sample on the calling thread.
void copy_sample_cpu(const SampleCopy& c);

// One launch copies every sample: `copies` is device memory (num_copies descriptors); `max_bytes`
// the largest copy. Source and destination may have any alignment.
void copy_samples_gpu(const SampleCopy* copies, int num_copies, int64_t max_bytes, void* stream);

}  // namespace sluice::kernels
