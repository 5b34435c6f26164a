// random.normal: values drawn from a normal distribution. The class is shared with
// random.uniform (random_op.h); the GPU registration is in random_op_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/random/random_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("random.normal")
        .doc("Draws values from a normal (Gaussian) distribution with `mean` and `stddev`, one "
             "value per sample (or `shape` values, or the shape of the optional input).")
        .num_inputs(0, 1)
        .input_doc("shape_like", "Optional: the output takes the shape of this input.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("mean", ArgType::kFloat, 0.0, "Mean of the distribution.", /*per_sample=*/true)
        .arg("stddev", ArgType::kFloat, 1.0, "Standard deviation of the distribution.",
             /*per_sample=*/true)
        .optional_arg("shape", ArgType::kIntList, "Shape of each output sample (default: scalar).",
                      /*per_sample=*/true)
        .arg("dtype", ArgType::kDType, std::string("FLOAT"),
             "Output data type: an integer type (values rounded and saturated), FLOAT or "
             "FLOAT64."));

SLUICE_REGISTER_OPERATOR("random.normal", OpDevice::kCPU, RandomCpu);

}  // namespace
}  // namespace sluice
