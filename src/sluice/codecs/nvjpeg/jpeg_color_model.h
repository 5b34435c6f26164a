#pragma once
// The colour space libjpeg assigns to a JPEG stream, from its markers alone.
//
// nvJPEG converts every 3-component stream from YCbCr, while libjpeg (and so Sluice's CPU
// decoder) honours the Adobe APP14 transform flag and 'R','G','B' component ids, which mark
// streams stored as RGB. The nvJPEG decoder sends such streams, and CMYK / YCCK ones, to the CPU
// fallback so that every route gives the same pixels; this scan tells it which they are. It
// follows libjpeg-turbo's jdapimin.c (default_decompress_parms): JFIF => YCbCr; else Adobe
// transform 0 => RGB (3 components) / CMYK (4), 1 => YCbCr, 2 => YCCK; else component ids
// 'R','G','B' => RGB; otherwise YCbCr (3) or CMYK (4).
//
// Only the markers before the first SOS are read; every read is bounds-checked. Thread-safe.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice::nvjpeg {

enum class JpegColorModel : uint8_t {
  kUnknown,  // not a JPEG, truncated before SOF, or an unusual component count
  kGray,
  kYCbCr,
  kRGB,
  kCMYK,
  kYCCK,
};

std::string_view color_model_name(JpegColorModel m);

JpegColorModel scan_jpeg_color_model(const uint8_t* data, size_t size);

}  // namespace sluice::nvjpeg
