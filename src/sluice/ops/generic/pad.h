#pragma once
// Shared by the CPU (pad.cc) and GPU (pad_gpu.cc) "pad" operators: the padded shape of each
// sample (the batch's largest extent, or at least `shape`, rounded up to `align`) and its fill
// value in the sample's type.

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/slice/slice_kernel.h"

namespace sluice {

struct PadPlan {
  std::vector<Shape> out_shapes;
  std::vector<uint8_t> fill;  // one value per sample, in the input's type
};
PadPlan plan_pad(const OpSpec& spec, const Workspace& ws);

// Sample i as a slice from the origin with constant borders; `fill`: where the kernel reads
// the sample's fill value.
kernels::SliceDesc pad_desc(const PadPlan& plan, const TensorList& in, TensorList& out, int i,
                            const void* fill);

}  // namespace sluice
