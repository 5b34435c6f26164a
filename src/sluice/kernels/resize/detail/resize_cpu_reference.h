#pragma once
// The scalar reference of resize_cpu(): the same arguments, checks and results, computed by the
// plain two-pass loops for every type and channel count (resize_cpu() itself runs the vectorised
// kernels of resample_fixed_point.h where they apply). For tests and benchmarks.

#include <cstddef>
#include <span>

#include "sluice/kernels/resize/resize_params.h"

namespace sluice::kernels::detail {

size_t resize_cpu_reference_scratch_size(const ConstHwcImage& in, const HwcImage& out,
                                         const ResizeSampleParams& params);

void resize_cpu_reference(const ConstHwcImage& in, const HwcImage& out,
                          const ResizeSampleParams& params, std::span<std::byte> scratch);

}  // namespace sluice::kernels::detail
