// jitter: moves each pixel by a random whole number of pixels. DALI has it on the GPU only; the
// CPU class (displace_op.h) gives the same output as the GPU one (displace_op_gpu.cc), a Sluice
// extra (docs/COMPATIBILITY.md).

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/displace_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    displace_args(OpSchema("jitter"))
        .doc("Performs a random jitter augmentation: each output pixel takes the input pixel "
             "moved by a random amount in [-nDegree/2, nDegree/2] in x and in y.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("nDegree", ArgType::kInt, int64_t{2},
             "Each pixel is moved by a random amount in the [-nDegree/2, nDegree/2] range."));

SLUICE_REGISTER_OPERATOR("jitter", OpDevice::kCPU, DisplaceCpu<kernels::DisplaceKind::kJitter>);

}  // namespace
}  // namespace sluice
