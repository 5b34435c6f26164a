#pragma once
// equalize's batch plan, shared by its CPU (equalize.cc) and GPU (equalize_gpu.cc) classes.

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/color/equalize.h"

namespace sluice {

struct EqualizePlan {
  std::vector<kernels::EqualizeChannel> channels;  // every channel of every frame, in order
  std::vector<int> first;                          // sample i's channels from first[i]
  int64_t max_pixels = 0;
};

// Checks the input as DALI does (UINT8; HW, HWC, CHW, FHW, FHWC or FCHW), sizes `out` like it
// and lists its channels.
EqualizePlan plan_equalize(const TensorList& in, TensorList& out);

}  // namespace sluice
