// reductions.min: the minimum over axes. The classes are shared with the other reductions
// (reduce_op.h); the GPU registration is in reduce_op_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/reductions/reduce_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    reduce_schema(OpSchema("reductions.min").doc("Gets minimal input element along provided axes."),
                  /*with_dtype=*/false, /*with_mean=*/false));

SLUICE_REGISTER_OPERATOR("reductions.min", OpDevice::kCPU, ReduceCpu<kernels::ReduceOp::kMin>);

}  // namespace
}  // namespace sluice
