// noise.gaussian: adds normally distributed noise to each element. The classes are shared with
// the other noise operators (noise_op.h); the GPU registration is in noise_op_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/noise/noise_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("noise.gaussian")
        .doc("Adds Gaussian noise with `mean` and `stddev` to each element (integers are rounded "
             "and saturated).")
        .num_inputs(1, 1)
        .input_doc("input", "Data: uint8 ... int64 or float.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("mean", ArgType::kFloat, 0.0, "Mean of the noise.", /*per_sample=*/true)
        .arg("stddev", ArgType::kFloat, 1.0, "Standard deviation of the noise.",
             /*per_sample=*/true));

SLUICE_REGISTER_OPERATOR("noise.gaussian", OpDevice::kCPU, NoiseCpu);

}  // namespace
}  // namespace sluice
