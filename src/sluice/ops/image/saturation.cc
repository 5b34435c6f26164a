// saturation: scales the saturation of RGB images in the YIQ colour space. The class is shared with
// the other colour operators (color_ops.h); the GPU registration is in color_ops_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/color_ops.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("saturation")
        .doc("Changes the saturation of RGB images (a scale of the YIQ colour space's I and Q).")
        .num_inputs(1, 1)
        .input_doc("input",
                   "RGB images (HWC, FHWC or DHWC, 3 channels; UINT8, INT16, INT32, "
                   "FLOAT16 or FLOAT).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("saturation", ArgType::kFloat, 1.0,
             "Saturation multiplier; 0 gives grey, 1 is neutral.", true)
        .enum_arg("image_type", {"RGB", "BGR", "GRAY", "YCbCr", "ANY_DATA"}, "RGB",
                  "Accepted for compatibility; ignored, as in DALI.")
        .optional_arg("dtype", ArgType::kDType,
                      "Output type (UINT8, INT16, INT32, FLOAT16 or FLOAT); the input's by "
                      "default."));

SLUICE_REGISTER_OPERATOR("saturation", OpDevice::kCPU, ColorCpu);

}  // namespace
}  // namespace sluice
