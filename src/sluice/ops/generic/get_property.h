#pragma once
// Shared by the CPU (get_property.cc) and GPU (get_property_gpu.cc) "get_property" operators.

#include <string>
#include <vector>

#include "sluice/exec/operator.h"

namespace sluice {

enum class Property { kSourceInfo, kLayout };

// The property `key` names (once, when the pipeline is built).
Property parse_property(const OpSpec& spec);

// Sizes the output (a 1-D uint8 tensor per sample) and returns its bytes, sample after sample.
std::vector<uint8_t> plan_property(Workspace& ws, Property p);

}  // namespace sluice
