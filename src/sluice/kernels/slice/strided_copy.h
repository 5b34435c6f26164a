#pragma once
// Strided copies: the output is a dense array, each of its dimensions a step (possibly negative)
// through the input. Slicing with steps, indexing and newaxis reduce to this. The description
// merges dimensions that are contiguous in the input (describe_strided_copy), so most slices
// copy long runs.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sluice/core/shape.h"

namespace sluice::kernels {

inline constexpr int kMaxCopyDims = 16;  // after merging (DALI's limit)

struct StridedCopyDesc {
  void* out = nullptr;
  const void* in = nullptr;  // the input's first element (the offset already applied)
  int ndim = 1;
  int64_t shape[kMaxCopyDims] = {1};
  int64_t stride[kMaxCopyDims] = {1};  // input elements per step of each output dimension
};

// The description of out[i0, i1, ...] = in[start + i0 * step0 * s0 + i1 * step1 * s1 ...] where
// `in_shape` is the input's shape (s its row-major strides) and `start`, `step`, `extent` give,
// per input dimension, the first index, the step and the number of output elements. Returns
// false when more than kMaxCopyDims dimensions remain after merging.
bool describe_strided_copy(StridedCopyDesc& d, void* out, const void* in, size_t elem_size,
                           const Shape& in_shape, const Shape& start, const Shape& step,
                           const Shape& extent);

// The description of a transpose: output dimension k is input dimension perm[k].
bool describe_permuted_copy(StridedCopyDesc& d, void* out, const void* in, size_t elem_size,
                            const Shape& in_shape, const std::vector<int>& perm);

int64_t strided_copy_volume(const StridedCopyDesc& d);

void strided_copy_cpu(const StridedCopyDesc& d, size_t elem_size);

// CUDA: one launch for all samples (descriptors in device memory); `max_n` the largest volume.
void strided_copy_gpu(const StridedCopyDesc* descs, int num_samples, int64_t max_n,
                      size_t elem_size, void* stream);

}  // namespace sluice::kernels
