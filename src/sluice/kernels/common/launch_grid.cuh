#pragma once
// Launch grids of the batched CUDA kernels (internal; .cu files only). A batched kernel runs one
// row of blocks per sample (blockIdx.y is the sample) and its blocks in x cover the largest
// sample's items, each block a fixed number of them. Where a kernel caps the blocks in x, its
// blocks stride over the items beyond (a grid-stride loop); a kernel without that loop must not
// be given a cap.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace sluice::kernels {

// The blocks of `per_block` items each that cover `n` items.
constexpr int64_t blocks_for(int64_t n, int64_t per_block) {
  return (n + per_block - 1) / per_block;
}

// One row of blocks_for(max_items, per_block) blocks for each of `num_samples` samples.
inline dim3 batch_grid(int64_t num_samples, int64_t max_items, int64_t per_block) {
  return dim3(static_cast<unsigned>(blocks_for(max_items, per_block)),
              static_cast<unsigned>(num_samples));
}

// As above, with at most `max_blocks_x` blocks in a row: for kernels that stride over their items.
inline dim3 batch_grid(int64_t num_samples, int64_t max_items, int64_t per_block,
                       int64_t max_blocks_x) {
  return dim3(static_cast<unsigned>(std::min(blocks_for(max_items, per_block), max_blocks_x)),
              static_cast<unsigned>(num_samples));
}

}  // namespace sluice::kernels
