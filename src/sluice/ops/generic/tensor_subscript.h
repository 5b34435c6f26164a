#pragma once
// Shared by the CPU (tensor_subscript.cc) and GPU (tensor_subscript_gpu.cc) "_tensor_subscript"
// operators: DALI's indexing of a DataNode. Subscript i is an index (at_i: the dimension goes),
// a range (lo_i, hi_i, step_i: Python's slice rules), or absent (the whole dimension); each value
// is a constant or a per-sample 0-D integer tensor.

#include <string>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/slice/strided_copy.h"

namespace sluice {

inline constexpr int kMaxSubscripts = 32;

struct SubscriptArgs {
  struct Sub {
    bool index = false, range = false;  // at_i given; any of lo_i, hi_i, step_i given
    std::string at, lo, hi, step;       // argument names
  };
  std::vector<Sub> subs;  // up to the last given subscript
  int declared = 0;       // num_subscripts: the input needs at least this many dimensions
};
SubscriptArgs parse_subscript_args(const OpSpec& spec);

// One batch: per sample and input dimension the first index, step and output extent; the
// output shapes (indexed dimensions removed) and layout.
struct SubscriptPlan {
  std::vector<Shape> start, step, extent, out_shapes;
  Layout layout;
};
SubscriptPlan plan_subscript(const SubscriptArgs& args, const OpSpec& spec, const Workspace& ws);

// Sample i as a strided copy.
kernels::StridedCopyDesc subscript_copy(const SubscriptPlan& plan, const TensorList& in,
                                        TensorList& out, int i);

}  // namespace sluice
