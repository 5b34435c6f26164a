#pragma once
// JPEG compression followed by decompression of an RGB image (jpeg_compression_distortion),
// through libjpeg-turbo with the settings DALI's CPU operator gets from its codec: baseline
// quality tables, 4:2:0 chroma, the exact integer DCTs, fancy upsampling.

#include <cstdint>
#include <vector>

namespace sluice::codecs {

// Compresses the height x width interleaved RGB image `rgb` with `quality` (clamped to 1..100)
// and decompresses it into `out` (same size; may not alias `rgb`). `scratch` holds the encoded
// stream between calls. Throws DecodeError if libjpeg fails.
void jpeg_roundtrip(const uint8_t* rgb, uint8_t* out, int height, int width, int quality,
                    std::vector<uint8_t>& scratch);

}  // namespace sluice::codecs
