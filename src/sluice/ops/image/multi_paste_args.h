#pragma once
// The argument handling of multi_paste, shared by its CPU and GPU classes: the output type and
// shapes, and each output's regions, validated as DALI validates them.

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/paste/paste.h"

namespace sluice {

struct MultiPastePlan {
  DType in_type, out_type;
  std::vector<Shape> out_shapes;
  std::vector<kernels::MultiPasteSample> samples;  // `out` left null
  std::vector<kernels::PasteRegion> regions;       // `in` is the source sample's data pointer
};

MultiPastePlan plan_multi_paste(const Workspace& ws);

}  // namespace sluice
