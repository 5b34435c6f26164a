// decoders.image_crop: decodes a fixed window of each image, decoding only the region it needs.
//
// The four decoders share their classes: the CPU one (image_decoder.h), registered here, and the
// mixed one (nvJPEG builds only), registered in nvjpeg/image_decoder_mixed.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/decoders/decoder_args.h"
#include "sluice/ops/decoders/image_decoder.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    fixed_crop_args(decoder_schema("decoders.image_crop",
                                   "Decodes a fixed window (crop=(h, w) at crop_pos_x, crop_pos_y) "
                                   "of each image, decoding only "
                                   "the region the window needs."))
        .alias("image_decoder_crop")
        .alias("ImageDecoderCrop"));

SLUICE_REGISTER_OPERATOR("decoders.image_crop", OpDevice::kCPU, ImageDecoderCpu);

}  // namespace
}  // namespace sluice
