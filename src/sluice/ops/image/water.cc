// water: moves the pixels of each image along sine waves. The classes are in displace_op.h
// (CPU) and displace_op_gpu.cc (GPU).

#include <cmath>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/displace_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    displace_args(OpSchema("water"))
        .doc("Performs a water augmentation, which makes the image appear to be underwater: "
             "output pixel (y, x) takes the input at (x + ampl_x * sin(freq_x * y + phase_x), "
             "y + ampl_y * cos(freq_y * x + phase_y)).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("ampl_x", ArgType::kFloat, 10.0, "Amplitude of the wave in the x direction.")
        .arg("ampl_y", ArgType::kFloat, 10.0, "Amplitude of the wave in the y direction.")
        .arg("freq_x", ArgType::kFloat, 2 * M_PI / 128,
             "Frequency of the wave in the x direction (2 pi / 128).")
        .arg("freq_y", ArgType::kFloat, 2 * M_PI / 128,
             "Frequency of the wave in the y direction (2 pi / 128).")
        .arg("phase_x", ArgType::kFloat, 0.0, "Phase of the wave in the x direction.")
        .arg("phase_y", ArgType::kFloat, 0.0, "Phase of the wave in the y direction."));

SLUICE_REGISTER_OPERATOR("water", OpDevice::kCPU, DisplaceCpu<kernels::DisplaceKind::kWater>);

}  // namespace
}  // namespace sluice
