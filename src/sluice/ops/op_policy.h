#pragma once
// Tuned constants of the operators (the decoders have theirs in decoders/decoder_policy.h).

#include <cstddef>

#include "sluice/memory/tensor_list.h"

namespace sluice {

// Batches with less data than this run on the stage thread: waking the pool costs more than the
// work.
inline constexpr size_t kInlineBatchBytes = size_t(1) << 18;

// The `inline_below` argument of Workspace::for_each_sample for a light operator over `t`.
inline int inline_below(const TensorList& t) {
  return t.total_bytes() < kInlineBatchBytes ? t.num_samples() : 1;
}

}  // namespace sluice
