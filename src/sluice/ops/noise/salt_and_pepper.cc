// noise.salt_and_pepper: replaces random pixels (or elements) by a salt or a pepper value. The
// classes are shared with the other noise operators (noise_op.h); the GPU registration is in
// noise_op_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/noise/noise_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("noise.salt_and_pepper")
        .doc("Replaces each pixel with probability `prob` by salt (with probability "
             "`salt_vs_pepper`) or pepper.")
        .num_inputs(1, 1)
        .input_doc("input", "Data: uint8 ... int64 or float; channels first or last.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("prob", ArgType::kFloat, 0.05, "Probability that a pixel is replaced.",
             /*per_sample=*/true)
        .arg("salt_vs_pepper", ArgType::kFloat, 0.5,
             "Probability that a replaced pixel is salt rather than pepper.", /*per_sample=*/true)
        .optional_arg("salt_val", ArgType::kFloat,
                      "The salt value (default: the type's maximum, 1 for float).",
                      /*per_sample=*/true)
        .optional_arg("pepper_val", ArgType::kFloat,
                      "The pepper value (default: the type's minimum, -1 for float).",
                      /*per_sample=*/true)
        .arg("per_channel", ArgType::kBool, false,
             "Draw for each channel separately (else one draw per pixel for all its channels)."));

SLUICE_REGISTER_OPERATOR("noise.salt_and_pepper", OpDevice::kCPU, NoiseCpu);

}  // namespace
}  // namespace sluice
