// reinterpret: the same bytes with a new type, shape and/or layout, without a copy (ReshapeOp,
// both devices).

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/reshape.h"
#include "sluice/ops/generic/reshape_args.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(reshape_args(
    OpSchema("reinterpret")
        .doc("Treats the input as if it had a different type, shape and/or layout; the data is "
             "not copied.")
        .optional_arg("dtype", ArgType::kDType,
                      "The output type (with no shape given, the innermost extent absorbs the "
                      "change of element size).")));

SLUICE_REGISTER_OPERATOR("reinterpret", OpDevice::kCPU, ReshapeOp);
SLUICE_REGISTER_OPERATOR("reinterpret", OpDevice::kGPU, ReshapeOp);

}  // namespace
}  // namespace sluice
