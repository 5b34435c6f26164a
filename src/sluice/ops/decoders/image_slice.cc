// decoders.image_slice: decodes a slice of each image, given by arguments or by anchor and
// shape inputs.
//
// The four decoders share their classes: the CPU one (image_decoder.h), registered here, and the
// mixed one (nvJPEG builds only), registered in nvjpeg/image_decoder_mixed.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/decoders/decoder_args.h"
#include "sluice/ops/decoders/image_decoder.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    decoder_schema("decoders.image_slice",
                   "Decodes a slice of each image, given by `rel_start`/`rel_shape` (fractions) or "
                   "`start`/`shape` (pixels) in (x, y) order, or by the anchor and shape inputs.")
        .num_inputs(1, 3)
        .input_doc("anchor", "Optional: per-sample (x, y) start of the slice.")
        .input_doc("shape", "Optional: per-sample (width, height) of the slice.")
        .optional_arg("rel_start", ArgType::kFloatList, "Slice start (x, y), relative.", true)
        .optional_arg("rel_shape", ArgType::kFloatList, "Slice size (w, h), relative.", true)
        .optional_arg("start", ArgType::kFloatList, "Slice start (x, y), pixels.", true)
        .optional_arg("shape", ArgType::kFloatList, "Slice size (w, h), pixels.", true)
        .arg("normalized_anchor", ArgType::kBool, true,
             "The anchor input is relative (fractions of the size).")
        .arg("normalized_shape", ArgType::kBool, true,
             "The shape input is relative (fractions of the size).")
        .alias("image_decoder_slice")
        .alias("ImageDecoderSlice"));

SLUICE_REGISTER_OPERATOR("decoders.image_slice", OpDevice::kCPU, ImageDecoderCpu);

}  // namespace
}  // namespace sluice
