#pragma once
// What the image decoders (decoders.image, image_random_crop, image_crop, image_slice; on the CPU
// and "mixed") share in arguments: the schemas' common arguments, argument parsing and the choice
// of each sample's crop window.

#include <optional>
#include <string>

#include "sluice/codecs/image_decoder.h"
#include "sluice/exec/operator.h"
#include "sluice/graph/op_schema.h"
#include "sluice/kernels/crop/crop_window.h"
#include "sluice/kernels/crop/random_crop_window.h"

namespace sluice {

// The schema of a decoder with the arguments common to the four (CPU and mixed).
OpSchema decoder_schema(const std::string& name, const std::string& doc);
// decoders.image_random_crop's window arguments.
OpSchema random_crop_args(OpSchema s);
// decoders.image_crop's window arguments.
OpSchema fixed_crop_args(OpSchema s);

enum class DecoderCrop : uint8_t { kNone, kRandom, kFixed, kSlice };

struct DecoderArgs {
  codecs::OutputColor color = codecs::OutputColor::kRGB;
  DType dtype = DType::kUInt8;
  bool adjust_orientation = true;
  int64_t max_pixels = codecs::kDefaultMaxPixels;
  bool skip_bad = false;  // on_error="skip"
  DecoderCrop crop = DecoderCrop::kNone;
  RandomResizedCropParams random;
};

DecoderArgs parse_decoder_args(const OpSpec& spec);

// The crop window of `sample` in output (oriented) coordinates of an image of `height` x
// `width`, or nullopt for the whole image. Random windows come from the sample's stream, so
// decoders.image_random_crop and random_resized_crop with the same seed cut the same windows.
std::optional<CropWindow> decoder_window(const DecoderArgs& args, const Workspace& ws, int sample,
                                         int64_t height, int64_t width);

}  // namespace sluice
