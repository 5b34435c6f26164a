// reductions.std_dev: the standard deviation over axes. The classes are shared with the other
// reductions (reduce_op.h); the GPU registration is in reduce_op_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/reductions/reduce_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(reduce_schema(
    OpSchema("reductions.std_dev")
        .doc("Gets standard deviation of elements along provided axes, around the given `mean`."),
    /*with_dtype=*/false, /*with_mean=*/true));

SLUICE_REGISTER_OPERATOR("reductions.std_dev", OpDevice::kCPU,
                         ReduceCpu<kernels::ReduceOp::kStdDev>);

}  // namespace
}  // namespace sluice
