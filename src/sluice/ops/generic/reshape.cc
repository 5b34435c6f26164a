// reshape: the same bytes with a new shape and/or layout, without a copy (ReshapeOp, both
// devices).

#include "sluice/ops/generic/reshape.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/reshape_args.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(reshape_args(OpSchema("reshape").doc(
    "Treats the input as if it had a different shape and/or layout; the data is not "
    "copied.")));

SLUICE_REGISTER_OPERATOR("reshape", OpDevice::kCPU, ReshapeOp);
SLUICE_REGISTER_OPERATOR("reshape", OpDevice::kGPU, ReshapeOp);

}  // namespace
}  // namespace sluice
