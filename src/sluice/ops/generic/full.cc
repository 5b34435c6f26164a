// full: the fill value broadcast to a shape. The class is shared with the other constant-value
// operators (full_op.h); DALI has them on the CPU only.

#include <string>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/full_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    full_shape_args(OpSchema("full")
                        .doc("Returns new data of the given `shape`, filled with the fill value "
                             "(the input) broadcast numpy-style; its type is the fill value's.")
                        .num_inputs(1, 1)
                        .input_doc("fill_value", "The fill value.")));

SLUICE_REGISTER_OPERATOR("full", OpDevice::kCPU, FullCpu<FullKind::kFull>);

}  // namespace
}  // namespace sluice
