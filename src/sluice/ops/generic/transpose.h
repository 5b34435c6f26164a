#pragma once
// Shared by the CPU (transpose.cc) and GPU (transpose_gpu.cc) "transpose" operators.

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/slice/strided_copy.h"

namespace sluice {

// `perm` for an `ndim`-D input (reversed dimensions when not given), checked.
std::vector<int> transpose_perm(const OpSpec& spec, int ndim);
// The output layout: `output_layout`, else the permuted input layout (`transpose_layout`).
Layout transpose_layout(const OpSpec& spec, const Layout& in, const std::vector<int>& perm);
// Sizes `out` and describes each sample's copy.
std::vector<kernels::StridedCopyDesc> plan_transpose(const OpSpec& spec, const TensorList& in,
                                                     TensorList& out);

}  // namespace sluice
