// full_like: the fill value in the input's shape and type. The class is shared with the other
// constant-value operators (full_op.h); DALI has them on the CPU only.

#include <string>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/full_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("full_like")
        .doc("Returns new data with the shape, type and layout of the input, filled with the fill "
             "value broadcast numpy-style and converted to that type.")
        .num_inputs(2, 2)
        .input_doc("data_like", "The data to copy the shape, type and layout from.")
        .input_doc("fill_value", "The fill value."));

SLUICE_REGISTER_OPERATOR("full_like", OpDevice::kCPU, FullCpu<FullKind::kFullLike>);

}  // namespace
}  // namespace sluice
