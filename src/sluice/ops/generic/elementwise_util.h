#pragma once
// Helpers shared by the light element-wise operators.

#include "sluice/memory/tensor_list.h"

namespace sluice {

// Batches with little data run on the stage thread: waking the pool costs more than the work.
inline int inline_below(const TensorList& t) {
  constexpr size_t kParallelBytes = size_t(1) << 18;
  return t.total_bytes() < kParallelBytes ? t.num_samples() : 1;
}

}  // namespace sluice
