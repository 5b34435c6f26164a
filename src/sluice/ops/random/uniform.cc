// random.uniform: values drawn uniformly from a range or a discrete set. The class is shared
// with random.coin_flip (random_op.h); the GPU registration is in random_op_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/random/random_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("random.uniform")
        .doc("Draws values uniformly from [range[0], range[1]) or, with `values`, uniformly from "
             "a discrete set.")
        .num_inputs(0, 1)
        .input_doc("shape_like", "Optional: the output takes the shape of this input.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("range", ArgType::kFloatList, std::vector<double>{-1.0, 1.0},
             "Half-open range [min, max).", /*per_sample=*/true)
        .optional_arg("values", ArgType::kFloatList, "Discrete values to choose from.",
                      /*per_sample=*/true)
        .optional_arg("shape", ArgType::kIntList, "Shape of each output sample (default: scalar).",
                      /*per_sample=*/true)
        .arg("dtype", ArgType::kDType, std::string("FLOAT"), "Output data type."));

SLUICE_REGISTER_OPERATOR("random.uniform", OpDevice::kCPU, RandomCpu);

}  // namespace
}  // namespace sluice
