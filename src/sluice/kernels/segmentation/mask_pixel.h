#pragma once
// segmentation.random_mask_pixel's draw: a uniformly chosen foreground element of a mask
// (equal to a value, or above a threshold), from the sample's stream.

#include <cstdint>

#include "sluice/core/dtype.h"
#include "sluice/core/rng.h"

namespace sluice::kernels {

struct MaskForeground {
  bool by_value;  // x == value, else x > threshold
  int64_t value;
  float threshold;
};

// The flat index of a uniformly chosen foreground element of `mask` (n elements of type t), or
// -1 when there is none.
int64_t random_foreground_index(const void* mask, DType t, int64_t n, const MaskForeground& fg,
                                SampleRng& rng);

}  // namespace sluice::kernels
