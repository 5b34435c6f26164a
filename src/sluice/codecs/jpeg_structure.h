#pragma once
// A structural check of a JPEG stream's markers, entropy-coded data included, without decoding:
// segment lengths stay inside the file, restart markers come in sequence (when a DRI segment
// sets a restart interval: libjpeg does not read their numbers otherwise), and the stream ends
// with EOI after its last scan. libjpeg (the CPU decoder) rejects streams that fail these
// checks; nvJPEG, and above all the hardware engines, decode them silently into garbage. The
// mixed decoder runs this check (a few microseconds per image) so that both decoders agree on
// truncated files, files missing their EOI and misnumbered restart markers.
//
// Thread-safe; reads only [data, data + size).

#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::codecs {

// Empty when the structure is complete, otherwise what is wrong (for a DecodeError message).
std::string jpeg_structure_problem(const uint8_t* data, size_t size);

}  // namespace sluice::codecs
