#pragma once
// What box_encoder's CPU and GPU classes share: the arguments and the checks of the inputs.

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/bbox/box_encoder.h"

namespace sluice {

// The constant arguments (anchors not set: the caller places them).
kernels::BoxEncoderParams box_encoder_params(const OpSpec& spec, std::vector<float>& anchors);

// Checks the inputs and sizes the outputs; returns each sample's number of boxes.
std::vector<int> box_encoder_outputs(Workspace& ws, int num_anchors);

}  // namespace sluice
