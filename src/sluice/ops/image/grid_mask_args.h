#pragma once
// The argument handling of grid_mask, shared by its CPU and GPU classes.

#include "sluice/exec/operator.h"
#include "sluice/kernels/mask/grid_mask.h"

namespace sluice {

// Refuses what DALI's grid_mask refuses (types other than uint8, int16, int32 and float; a tile
// that is not positive) and input that is not 3-D (DALI reads past such samples).
void check_grid_mask_input(const TensorList& in);

// Sample `i`'s descriptor: the sample's dimensions are read as H, W, C whatever the layout, as
// DALI reads them.
kernels::GridMaskSample grid_mask_sample(const Workspace& ws, const TensorList& in, TensorList& out,
                                         int i);

}  // namespace sluice
