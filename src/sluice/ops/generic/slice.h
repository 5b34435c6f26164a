#pragma once
// Shared by the CPU (slice.cc) and GPU (slice_gpu.cc) "slice" operators: the window of each
// sample from the named arguments (start / rel_start, end / rel_end / shape / rel_shape) or the
// anchor and shape inputs, over the dimensions `axes` or `axis_names` give, rounded as DALI
// rounds, then placed by the out-of-bounds policy.

#include <optional>
#include <string>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/slice/slice_kernel.h"
#include "sluice/kernels/slice/strided_copy.h"

namespace sluice {

struct SliceArgs {
  std::string start, end;  // the named argument giving each ("" none), e.g. "rel_start", "shape"
  bool error_policy = true, trim = false;
  kernels::SliceBorder border = kernels::SliceBorder::kConstant;
  std::vector<double> fill_values;
  std::optional<DType> dtype;
  bool normalized_anchor = true, normalized_shape = true;
};
SliceArgs parse_slice_args(const OpSpec& spec);

// One batch: per sample the input coordinate of the first output element and the output shape;
// the fill values in the output type and the dimension along which they vary.
struct SlicePlan {
  std::vector<Shape> anchor, out_shapes;
  DType out_type = DType::kUInt8;
  std::vector<uint8_t> fill;  // fill values, converted
  int channel_dim = -1;
};

// `anchor` / `shape`: the positional inputs, as host data (null when not given). Fills `plan`,
// reusing its storage: an operator keeps one plan from batch to batch.
//
// Note [Slice planning per batch]: at 224x224 a batch of 256 windows moves little data, so the
// host's work per sample counts. What cannot differ between samples is read once a batch: the
// axes and the named values, unless an argument input gives them per sample; the plan's vectors
// keep their storage.
void plan_slice(const SliceArgs& args, const OpSpec& spec, const Workspace& ws,
                const TensorList* anchor, const TensorList* shape, SlicePlan& plan);

// Whether sample i reads only inside its input without converting (a strided copy).
bool slice_is_copy(const SlicePlan& plan, const TensorList& in, int i);
kernels::StridedCopyDesc slice_copy_desc(const SlicePlan& plan, const TensorList& in,
                                         TensorList& out, int i);
// `fill`: where the kernel reads the fill values (host or device copy of plan.fill).
kernels::SliceDesc slice_desc(const SlicePlan& plan, const TensorList& in, TensorList& out, int i,
                              const void* fill);

}  // namespace sluice
