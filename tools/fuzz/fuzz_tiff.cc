// libFuzzer target: TIFF (libtiff) headers and decoding, with the checks of image_target.h.
// Inputs of other formats are dropped from the corpus (-1), so the time goes to this codec.

#include "image_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::codecs;
  if (detect_format(data, size) != ImageFormat::kTiff) return -1;
  return sluice::fuzz::image::run(data, size);
}
