#pragma once
// The argument handling of paste, shared by its CPU and GPU classes: the canvas and the image's
// place on it, as DALI computes them, and the fill values.

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/paste/paste.h"

namespace sluice {

// `fill_value` as DALI reads it: one value repeated `n_channels` times or `n_channels` values,
// each converted to uint8 as a C++ cast converts an int (wrapping).
std::vector<uint8_t> paste_fill(const OpSpec& spec);

// Refuses what DALI's paste refuses (input that is not 3-D uint8 HWC) and images whose channels
// are not `n_channels` (DALI reads or writes past its buffers then).
void check_paste_input(const TensorList& in, int64_t n_channels);

// Sample `i`'s descriptor (`out` and `in` left null) and its canvas shape.
kernels::PasteSample paste_sample(const Workspace& ws, const TensorList& in, int i);

}  // namespace sluice
