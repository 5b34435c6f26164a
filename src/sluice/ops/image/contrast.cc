// contrast: out = contrast_center + contrast * (in - contrast_center). The class is shared with the
// other colour operators (color_ops.h); the GPU registration is in color_ops_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/color_ops.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("contrast")
        .doc("Adjusts contrast: out = contrast_center + contrast * (in - contrast_center).")
        .num_inputs(1, 1)
        .input_doc("input", "Images (HWC, FHWC or DHWC; UINT8, INT16, INT32 or FLOAT).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("contrast", ArgType::kFloat, 1.0,
             "Contrast multiplier; 1 is neutral, 0 makes every value `contrast_center`.", true)
        .optional_arg("contrast_center", ArgType::kFloat,
                      "The value contrast leaves unchanged; by default half the input type's "
                      "positive range (128 for UINT8, 0.5 for floats).",
                      true)
        .optional_arg("dtype", ArgType::kDType,
                      "Output type (UINT8, INT16, INT32 or FLOAT); the input's by default."));

SLUICE_REGISTER_OPERATOR("contrast", OpDevice::kCPU, ColorCpu);

}  // namespace
}  // namespace sluice
