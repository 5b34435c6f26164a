// decoders.image_random_crop: decodes a random window of each image (torchvision's
// RandomResizedCrop rule), decoding only the rows and columns the window needs.
//
// The four decoders share their classes: the CPU one (image_decoder.h), registered here, and the
// mixed one (nvJPEG builds only), registered in nvjpeg/image_decoder_mixed.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/decoders/decoder_args.h"
#include "sluice/ops/decoders/image_decoder.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    random_crop_args(decoder_schema("decoders.image_random_crop",
                                    "Decodes a random window of each image, drawn with "
                                    "torchvision's RandomResizedCrop rule (the "
                                    "window is not resized). JPEG decodes only the rows and "
                                    "columns the window needs; the result "
                                    "equals cropping the full decode."))
        .alias("image_decoder_random_crop")
        .alias("ImageDecoderRandomCrop"));

SLUICE_REGISTER_OPERATOR("decoders.image_random_crop", OpDevice::kCPU, ImageDecoderCpu);

}  // namespace
}  // namespace sluice
