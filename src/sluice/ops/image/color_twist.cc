// color_twist: hue, saturation, brightness and contrast in one linear transform. The class is
// shared with the other colour operators (color_ops.h); the GPU registration is in
// color_ops_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/color_ops.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("color_twist")
        .doc("Adjusts hue, saturation, brightness and contrast of RGB images in one linear "
             "transform (YIQ rotation and scales; contrast around 128, or 0.5 for floats).")
        .num_inputs(1, 1)
        .input_doc("input",
                   "RGB images (HWC, FHWC or DHWC, 3 channels; UINT8, INT16, INT32, "
                   "FLOAT16 or FLOAT).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("hue", ArgType::kFloat, 0.0, "Hue change, in degrees.", true)
        .arg("saturation", ArgType::kFloat, 1.0,
             "Saturation multiplier; 0 gives grey, 1 is neutral.", true)
        .arg("brightness", ArgType::kFloat, 1.0, "Brightness multiplier; 1 is neutral.", true)
        .arg("contrast", ArgType::kFloat, 1.0,
             "Contrast multiplier; 1 is neutral, 0 gives uniform grey.", true)
        .enum_arg("image_type", {"RGB", "BGR", "GRAY", "YCbCr", "ANY_DATA"}, "RGB",
                  "Accepted for compatibility; ignored, as in DALI.")
        .optional_arg("dtype", ArgType::kDType,
                      "Output type (UINT8, INT16, INT32, FLOAT16 or FLOAT); the input's by "
                      "default."));

SLUICE_REGISTER_OPERATOR("color_twist", OpDevice::kCPU, ColorCpu);

}  // namespace
}  // namespace sluice
