#pragma once
// What libjpeg would conclude from a JPEG stream's markers, for the checks nvJPEG does not make.
//
// Colour space: nvJPEG converts every 3-component stream from YCbCr, while libjpeg (and so
// Sluice's CPU decoder) honours the Adobe APP14 transform flag and 'R','G','B' component ids,
// which mark streams stored as RGB. The nvJPEG decoder sends such streams, and CMYK / YCCK ones,
// to the CPU fallback so that every route gives the same pixels. The rules are libjpeg-turbo's
// (jdapimin.c, default_decompress_parms): JFIF => YCbCr; else Adobe transform 0 => RGB (3
// components) / CMYK (4), 1 => YCbCr, 2 => YCCK; else component ids 'R','G','B' => RGB;
// otherwise YCbCr (3 components) or CMYK (4).
//
// Quantization tables: libjpeg refuses a scan whose components use a table that no DQT defined
// ("Quantization table 0x.. was not defined"); the scan checks the first scan of DCT-based
// streams the same way, so that such files are left to the CPU codec instead of being decoded
// with undefined tables. (Lossless streams have no quantization tables.)
//
// Only the markers up to the first SOS are read; every read is bounds-checked. Thread-safe.

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

struct JpegHeaderScan {
  JpegColorModel color = JpegColorModel::kUnknown;
  // A component of the first scan uses a quantization table no DQT before it defined.
  bool undefined_quant_table = false;
  // Facts the hardware decoder gets wrong although nvjpegDecodeBatchedSupportedEx accepts them
  // (wrong pixels on the H100 for a grey image with 2x2 sampling and for SOF1 streams with
  // 16-bit quantization tables; bench/RESULTS.md#accuracy-hw-routing): the SOF marker code, 16-bit tables, and a single
  // component sampled other than 1x1.
  uint8_t sof = 0;
  bool quant16 = false;
  bool gray_subsampled = false;
  // The hardware engines decode these streams correctly: baseline, 8-bit tables, no odd grey.
  bool hardware_safe() const { return sof == 0xC0 && !quant16 && !gray_subsampled; }
};

JpegHeaderScan scan_jpeg_header(const uint8_t* data, size_t size);

}  // namespace sluice::nvjpeg
