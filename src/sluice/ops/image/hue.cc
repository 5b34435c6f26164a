// hue: rotates the hue of RGB images in the YIQ colour space. The class is shared with the other
// colour operators (color_ops.h); the GPU registration is in color_ops_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/color_ops.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("hue")
        .doc("Changes the hue of RGB images (a rotation in the YIQ colour space, degrees).")
        .num_inputs(1, 1)
        .input_doc("input",
                   "RGB images (HWC, FHWC or DHWC, 3 channels; UINT8, INT16, INT32, "
                   "FLOAT16 or FLOAT).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("hue", ArgType::kFloat, 0.0, "Hue change, in degrees.", true)
        .enum_arg("image_type", {"RGB", "BGR", "GRAY", "YCbCr", "ANY_DATA"}, "RGB",
                  "Accepted for compatibility; ignored, as in DALI.")
        .optional_arg("dtype", ArgType::kDType,
                      "Output type (UINT8, INT16, INT32, FLOAT16 or FLOAT); the input's by "
                      "default."));

SLUICE_REGISTER_OPERATOR("hue", OpDevice::kCPU, ColorCpu);

}  // namespace
}  // namespace sluice
