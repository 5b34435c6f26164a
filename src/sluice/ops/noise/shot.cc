// noise.shot: Poisson (shot) noise. The classes are shared with the other noise operators
// (noise_op.h); the GPU registration is in noise_op_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/noise/noise_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("noise.shot")
        .doc("Applies shot noise: each element becomes factor * Poisson(element / factor).")
        .num_inputs(1, 1)
        .input_doc("input", "Data: uint8 ... int64 or float.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("factor", ArgType::kFloat, 20.0,
             "The noise factor: larger means more noise (0 gives zeros, as in DALI).",
             /*per_sample=*/true));

SLUICE_REGISTER_OPERATOR("noise.shot", OpDevice::kCPU, NoiseCpu);

}  // namespace
}  // namespace sluice
