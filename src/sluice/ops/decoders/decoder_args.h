#pragma once
// What the image decoders (decoders.image, image_random_crop, image_crop, image_slice; on the CPU
// in image_decoder.cc and "mixed" in image_decoder_mixed_gpu.cc) share: their schemas'
// arguments, argument parsing and the choice of each sample's crop window.

#include <optional>

#include "sluice/codecs/image_decoder.h"
#include "sluice/exec/operator.h"
#include "sluice/kernels/crop/crop_window.h"
#include "sluice/kernels/crop/random_crop_window.h"

namespace sluice {

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

// A sample's decoding cost for handing out the costliest first (Workspace::for_each_sample):
// entropy decoding runs through the encoded bytes down to the window's last row.
double decode_cost(size_t encoded_bytes, const codecs::ImageInfo& info,
                   const std::optional<CropWindow>& window);

// on_error="skip": each bad sample takes the data of the next good one in the batch (wrapping
// around). Returns the source index of every sample; throws when every sample is bad.
std::vector<int> replacement_sources(const std::vector<char>& bad, const std::string& first_error);

}  // namespace sluice
