// zeros_like: zeros in the input's shape and type. The class is shared with the other
// constant-value operators (full_op.h); DALI has them on the CPU only.

#include <string>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/full_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("zeros_like")
        .doc("Returns new data with the shape, type and layout of the input, filled with zeros.")
        .num_inputs(1, 1)
        .input_doc("data_like", "The data to copy the shape, type and layout from.")
        .optional_arg("dtype", ArgType::kDType, "Overrides the output data type."));

SLUICE_REGISTER_OPERATOR("zeros_like", OpDevice::kCPU, FullCpu<FullKind::kZerosLike>);

}  // namespace
}  // namespace sluice
