// reductions.mean_square: the mean square over axes. The classes are shared with the other
// reductions (reduce_op.h); the GPU registration is in reduce_op_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/reductions/reduce_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(reduce_schema(
    OpSchema("reductions.mean_square").doc("Gets mean square of elements along provided axes."),
    /*with_dtype=*/true, /*with_mean=*/false));

SLUICE_REGISTER_OPERATOR("reductions.mean_square", OpDevice::kCPU,
                         ReduceCpu<kernels::ReduceOp::kMeanSquare>);

}  // namespace
}  // namespace sluice
