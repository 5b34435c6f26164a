// random.beta: values drawn from a beta distribution (CPU only, as in DALI). The class is shared
// with random.uniform (random_op.h).

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/random/random_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("random.beta")
        .doc("Draws values from a beta distribution with shape parameters `alpha` and `beta`, "
             "one value per sample (or `shape` values, or the shape of the optional input).")
        .num_inputs(0, 1)
        .input_doc("shape_like", "Optional: the output takes the shape of this input.")
        .arg("alpha", ArgType::kFloat, 1.0, "The first shape parameter, positive.",
             /*per_sample=*/true)
        .arg("beta", ArgType::kFloat, 1.0, "The second shape parameter, positive.",
             /*per_sample=*/true)
        .optional_arg("shape", ArgType::kIntList, "Shape of each output sample (default: scalar).",
                      /*per_sample=*/true)
        .arg("dtype", ArgType::kDType, std::string("FLOAT"),
             "Output data type: FLOAT or FLOAT64."));

SLUICE_REGISTER_OPERATOR("random.beta", OpDevice::kCPU, RandomCpu);

}  // namespace
}  // namespace sluice
