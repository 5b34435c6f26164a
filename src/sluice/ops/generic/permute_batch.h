#pragma once
// Shared by the CPU (permute_batch.cc) and GPU (permute_batch_gpu.cc) "permute_batch" operators.

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/gather/sample_gather.h"

namespace sluice {

// Sizes the output (sample i is the input's sample indices[i]) and returns the copies that fill
// it, one per sample.
std::vector<kernels::SampleCopy> plan_permute_batch(Workspace& ws);

}  // namespace sluice
