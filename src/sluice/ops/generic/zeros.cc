// zeros: zeros of a shape. The class is shared with the other constant-value operators
// (full_op.h); DALI has them on the CPU only.

#include <string>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/full_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(full_shape_args(
    OpSchema("zeros")
        .doc("Returns new data of the given `shape` and `dtype`, filled with zeros.")
        .num_inputs(0, 0)
        .arg("dtype", ArgType::kDType, std::string("INT32"), "Output data type.")));

SLUICE_REGISTER_OPERATOR("zeros", OpDevice::kCPU, FullCpu<FullKind::kZeros>);

}  // namespace
}  // namespace sluice
