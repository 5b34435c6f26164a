#pragma once
// What the CPU and GPU merge share: the checks and the sample copies; they differ in how they copy.

#include <vector>

#include "sluice/ops/conditional/conditional_args.h"

namespace sluice {

// Reads the predicate, checks the branches (inputs 0 and 1) against it and against each other,
// sizes the output and returns the copies that fill it, one per output sample.
std::vector<kernels::SampleCopy> prepare_merge(Workspace& ws);

}  // namespace sluice
