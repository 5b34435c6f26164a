#pragma once
// The argument handling of erase, shared by its CPU and GPU classes: the element types and ranks
// it takes, and each sample's boxes and fill values as DALI derives them.

#include <cstdint>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/erase/erase.h"

namespace sluice {

// Refuses the element types and ranks DALI's erase refuses.
void check_erase_input(const TensorList& in);

// Appends sample `i`'s boxes and fill values (converted to the input's type) to `boxes` and
// `fill`, and fills `s` except its data pointers.
void erase_sample_args(const Workspace& ws, const TensorList& in, int i, kernels::EraseSample& s,
                       std::vector<kernels::EraseBox>& boxes, std::vector<uint64_t>& fill);

}  // namespace sluice
