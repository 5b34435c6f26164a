// color_space_conversion: converts between RGB, BGR, YCbCr and GRAY. The class is shared with the
// other colour operators (color_ops.h); the GPU registration is in color_ops_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/color_ops.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("color_space_conversion")
        .doc("Converts UINT8 images between the RGB, BGR, YCbCr (ITU-R BT.601) and GRAY colour "
             "spaces.")
        .num_inputs(1, 1)
        .input_doc("input", "UINT8 images (HWC, DHWC, FHWC or FDHWC).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .required_arg("image_type", ArgType::kString,
                      "Colour space of the input: RGB, BGR, YCbCr or GRAY.")
        .required_arg("output_type", ArgType::kString,
                      "Colour space of the output: RGB, BGR, YCbCr or GRAY (not the input's)."));

SLUICE_REGISTER_OPERATOR("color_space_conversion", OpDevice::kCPU, ColorCpu);

}  // namespace
}  // namespace sluice
