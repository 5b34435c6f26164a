#pragma once
// Device helpers and launch plumbing shared by the CUDA kernels of kernels/crop (internal; .cu
// files only).

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "sluice/core/error.h"
#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"

namespace sluice::crop_detail {

inline constexpr int kBlockSize = 256;
// Blocks in flight per launch we aim for (an H100 keeps ~2k blocks of 256 threads resident);
// samples get an equal share of them, each block striding over its sample's work.
inline constexpr int64_t kTargetBlocks = 8192;

// Grid for `num_samples` samples of at most `max_items` work items each: blockIdx.y is the
// sample, blockIdx.x strides over its items.
inline dim3 sample_grid(int64_t num_samples, int64_t max_items) {
  const int64_t needed = kernels::blocks_for(max_items, kBlockSize);
  const int64_t share = std::max<int64_t>(1, kTargetBlocks / std::max<int64_t>(num_samples, 1));
  const int64_t bx = std::clamp<int64_t>(std::min(needed, share), 1, int64_t{1} << 30);
  return dim3(static_cast<unsigned>(bx), static_cast<unsigned>(num_samples), 1);
}

}  // namespace sluice::crop_detail
