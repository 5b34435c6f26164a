#pragma once
// Joining tensors along an axis (cat, stack): each input sample is `rows` runs of `width` bytes,
// written `out_pitch` bytes apart into its place in the output sample. A 2D copy, so the GPU
// version is the CUDA runtime's (no kernel of its own).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice::kernels {

struct JoinPiece {
  void* out = nullptr;  // the first byte this input's sample goes to
  const void* in = nullptr;
  size_t width = 0;      // bytes per run (the input's extents from the axis on)
  size_t out_pitch = 0;  // bytes between runs in the output
  int64_t rows = 0;      // runs (the product of the extents before the axis)
};

void join_cpu(const JoinPiece& p);

// All pieces, in device memory, on `stream`.
void join_gpu(const std::vector<JoinPiece>& pieces, void* stream);

}  // namespace sluice::kernels
