// reductions.variance: the variance over axes. The classes are shared with the other reductions
// (reduce_op.h); the GPU registration is in reduce_op_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/reductions/reduce_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(reduce_schema(
    OpSchema("reductions.variance")
        .doc("Gets variance of elements along provided axes, around the given `mean`."),
    /*with_dtype=*/false, /*with_mean=*/true));

SLUICE_REGISTER_OPERATOR("reductions.variance", OpDevice::kCPU,
                         ReduceCpu<kernels::ReduceOp::kVariance>);

}  // namespace
}  // namespace sluice
