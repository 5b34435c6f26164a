// libFuzzer target: JPEG 2000 (OpenJPEG) headers and decoding, with the checks of image_target.h.
// Inputs of other formats are dropped from the corpus (-1), so the time goes to this codec.

#include "image_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::codecs;
  if (detect_format(data, size) != ImageFormat::kJpeg2000) return -1;
  return sluice::fuzz::image::run(data, size);
}
