// libFuzzer target: image headers and CPU decoding of every format (the checks are in
// image_target.h).

#include "image_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return sluice::fuzz::image::run(data, size);
}
