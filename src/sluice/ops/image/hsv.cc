// hsv: hue, saturation and value, as a linear transform in the YIQ colour space. The class is
// shared with the other colour operators (color_ops.h); the GPU registration is in
// color_ops_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/color_ops.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("hsv")
        .doc("Adjusts hue, saturation and value (brightness) of RGB images, approximated by a "
             "linear transform: a rotation (hue, degrees) and scaling (saturation, value) in the "
             "YIQ colour space.")
        .num_inputs(1, 1)
        .input_doc("input",
                   "RGB images (HWC, FHWC or DHWC, 3 channels; UINT8, INT16, INT32, "
                   "FLOAT16 or FLOAT).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("hue", ArgType::kFloat, 0.0, "Hue change, in degrees.", true)
        .arg("saturation", ArgType::kFloat, 1.0,
             "Saturation multiplier; 0 gives grey, 1 is neutral.", true)
        .arg("value", ArgType::kFloat, 1.0, "Value (brightness) multiplier.", true)
        .arg("dtype", ArgType::kDType, std::string("UINT8"),
             "Output type (UINT8, INT16, INT32, FLOAT16 or FLOAT)."));

SLUICE_REGISTER_OPERATOR("hsv", OpDevice::kCPU, ColorCpu);

}  // namespace
}  // namespace sluice
