// random.coin_flip: Bernoulli draws. The class is shared with random.uniform (random_op.h); the
// GPU registration is in random_op_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/random/random_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("random.coin_flip")
        .doc("Draws 1 with probability `probability` and 0 otherwise (Bernoulli), one value per "
             "sample (or `shape` values, or the shape of the optional input).")
        .num_inputs(0, 1)
        .input_doc("shape_like", "Optional: the output takes the shape of this input.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("probability", ArgType::kFloat, 0.5, "Probability of a 1.", /*per_sample=*/true)
        .optional_arg("shape", ArgType::kIntList, "Shape of each output sample (default: scalar).",
                      /*per_sample=*/true)
        .arg("dtype", ArgType::kDType, std::string("INT32"), "Output data type."));

SLUICE_REGISTER_OPERATOR("random.coin_flip", OpDevice::kCPU, RandomCpu);

}  // namespace
}  // namespace sluice
