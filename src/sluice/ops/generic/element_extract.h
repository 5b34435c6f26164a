#pragma once
// Shared by the CPU (element_extract.cc) and GPU (element_extract_gpu.cc) "element_extract"
// operators.

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/gather/sample_gather.h"

namespace sluice {

// Checks `element_map` (once, when the pipeline is built) and returns it.
std::vector<int64_t> element_map(const OpSpec& spec);

// Sizes one output per element of `map` (each sample's frame, the leading extent dropped) and
// returns the copies that fill them: output after output, sample after sample.
std::vector<kernels::SampleCopy> plan_element_extract(Workspace& ws,
                                                      const std::vector<int64_t>& map);

}  // namespace sluice
