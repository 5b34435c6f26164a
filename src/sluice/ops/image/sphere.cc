// sphere: bulges each image from its centre. The classes are in displace_op.h (CPU) and
// displace_op_gpu.cc (GPU).

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/displace_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(displace_args(OpSchema("sphere"))
                           .doc("Performs a sphere augmentation: the image seen through a "
                                "sphere, magnified at the centre.")
                           .devices({OpDevice::kCPU, OpDevice::kGPU}));

SLUICE_REGISTER_OPERATOR("sphere", OpDevice::kCPU, DisplaceCpu<kernels::DisplaceKind::kSphere>);

}  // namespace
}  // namespace sluice
