#pragma once
// Shared by "cat" and "stack" (cat.cc, stack.cc and their _gpu.cc classes).

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/slice/join.h"

namespace sluice {

// The arguments both take: `axis` (an index) and `axis_name`.
OpSchema join_args(OpSchema s, const char* axis_name_doc);
// Sizes `out` (the inputs joined along an existing axis, or stacked along a new one) and returns
// one piece per sample and input.
std::vector<kernels::JoinPiece> plan_join(const OpSpec& spec, const Workspace& ws, TensorList& out,
                                          bool new_axis);

}  // namespace sluice
