// random_resized_crop: crops a random window of each image (torchvision's RandomResizedCrop
// rule) and resizes it in one pass. The classes are resize's (resize.h), which read the window
// from resize_plan(); the GPU registration is in resize_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/resize.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(filter_args(
    OpSchema("random_resized_crop")
        .doc("Crops a random window (torchvision's RandomResizedCrop rule: random_area, "
             "random_aspect_ratio, num_attempts, then a central fallback) and resizes it to "
             "`size` in one pass. With the same seed it cuts the same windows as "
             "decoders.image_random_crop.")
        .num_inputs(1, 1)
        .input_doc("input", "HWC images.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .required_arg("size", ArgType::kFloatList, "Output size (height, width).")
        .arg("random_area", ArgType::kFloatList, std::vector<double>{0.08, 1.0},
             "Range of the window's area as a fraction of the image's.")
        .arg("random_aspect_ratio", ArgType::kFloatList, std::vector<double>{3.0 / 4.0, 4.0 / 3.0},
             "Range of the window's aspect ratio (width / height).")
        .arg("num_attempts", ArgType::kInt, int64_t{10}, "Tries before the central fallback.")));

SLUICE_REGISTER_OPERATOR("random_resized_crop", OpDevice::kCPU, ResizeCpu);

}  // namespace
}  // namespace sluice
