// decoders.image: decodes whole images (JPEG, PNG, BMP, PNM, TIFF, WebP, JPEG 2000) to HWC.
//
// The four decoders share their classes: the CPU one (image_decoder.h), registered here, and the
// mixed one (nvJPEG builds only), registered in nvjpeg/image_decoder_mixed.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/decoders/decoder_args.h"
#include "sluice/ops/decoders/image_decoder.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    decoder_schema(
        "decoders.image",
        "Decodes images: JPEG (libjpeg-turbo on the CPU, nvJPEG with device='mixed'), PNG, BMP, "
        "PNM, TIFF (libtiff), WebP (libwebp) and JPEG 2000 (OpenJPEG), the format found from the "
        "bytes. HWC output. Corrupt, truncated or over-limit files raise a DecodeError naming the "
        "file.")
        .alias("image_decoder")
        .alias("ImageDecoder"));

SLUICE_REGISTER_OPERATOR("decoders.image", OpDevice::kCPU, ImageDecoderCpu);

}  // namespace
}  // namespace sluice
