#pragma once
// Image format detection and header inspection (no pixel decoding).
//
// peek_image() reads only the headers of an encoded image held in memory: the JPEG markers up to
// the first SOS, the PNG signature + IHDR (+ the chunk list, for tRNS / eXIf), the BMP file and
// DIB headers, the PNM header, the first TIFF IFD, the WebP RIFF chunk headers, or the JPEG 2000
// boxes up to the codestream's SIZ marker. It needs none of the optional libraries. The format is
// always detected from magic bytes, never from a file name. Malformed or truncated headers raise
// DecodeError with a message that names the problem and, where useful, the byte offset.
//
// Coordinates: "raw" means the pixel grid as stored in the file; "oriented" (= output) means the
// grid after applying the EXIF orientation, i.e. what a viewer shows and what decode_image()
// returns when DecodeParams::adjust_orientation is set. The helpers at the bottom convert sizes
// and crop windows between the two.
//
// Every function here is pure (thread-safe, no allocation beyond the returned value).

#include <cstddef>
#include <cstdint>
#include <string_view>
#include "sluice/core/crop_window.h"

namespace sluice::codecs {

enum class ImageFormat : uint8_t {
  kUnknown,
  kJpeg,      // FF D8 (SOI)
  kPng,       // 89 'P' 'N' 'G' 0D 0A 1A 0A
  kBmp,       // 'B' 'M'
  kPnm,       // 'P' '1'..'6' followed by whitespace
  kTiff,      // "II*\0" or "MM\0*"
  kWebp,      // "RIFF" size "WEBP"
  kJpeg2000,  // a JP2 signature box, or a J2K codestream (FF 4F FF 51)
};
// "JPEG", "PNG", "BMP", "PNM", "TIFF", "WebP", "JPEG 2000", "unknown"
std::string_view format_name(ImageFormat f);

// Returns the format announced by the magic bytes, kUnknown when none matches. Looks at no more
// than the first 16 bytes; does not validate the rest of the header (peek_image does).
ImageFormat detect_format(const uint8_t* data, size_t size);

// Colour space of the JPEG components, determined the way libjpeg-turbo 2.1.5 does in
// jpeg_read_header (JFIF / Adobe APP14 markers, then component ids).
enum class JpegColorSpace : uint8_t { kUnknown, kGray, kYCbCr, kRGB, kCMYK, kYCCK };
std::string_view jpeg_color_space_name(JpegColorSpace c);

// Chroma subsampling of a 3/4-component JPEG, from the luma sampling factors when every other
// component is 1x1 (J:a:b names as libjpeg-turbo uses them: 4:4:0 is 1x2, 4:1:0 is 4x2).
// kNone for single-component images; kOther for any other combination (e.g. luma 2x4).
enum class ChromaSubsampling : uint8_t { kNone, k444, k422, k420, k440, k411, k410, kOther };
std::string_view subsampling_name(ChromaSubsampling s);

struct JpegDetails {
  uint8_t sof_marker = 0;     // 0xC0..0xCF (SOF0 baseline, SOF1 extended, SOF2 progressive, ...)
  bool progressive = false;   // SOF2, SOF6, SOF10, SOF14
  bool arithmetic = false;    // SOF9..SOF15
  bool lossless = false;      // SOF3, SOF7, SOF11, SOF15
  bool hierarchical = false;  // SOF5..7, SOF13..15 (differential)
  int precision = 8;          // bits per sample (8, 12, 16)
  int num_components = 0;
  uint8_t component_id[4] = {};
  uint8_t h_samp[4] = {};  // sampling factors of the first four components
  uint8_t v_samp[4] = {};
  bool has_jfif = false;     // APP0 "JFIF"
  bool has_adobe = false;    // APP14 "Adobe"
  int adobe_transform = -1;  // 0 (none: RGB/CMYK), 1 (YCbCr), 2 (YCCK); -1 without APP14
  int restart_interval = 0;  // DRI in effect for the first scan (MCUs); 0 when absent
  JpegColorSpace color_space = JpegColorSpace::kUnknown;
  ChromaSubsampling subsampling = ChromaSubsampling::kNone;

  // Whether libjpeg-turbo 2.1.5 (the CPU decoder) can decode this image: 8-bit precision, not
  // lossless, not hierarchical, and 1, 3 or 4 components.
  bool decodable() const;
};

enum class PngColorType : uint8_t {
  kGray = 0,
  kRGB = 2,
  kPalette = 3,
  kGrayAlpha = 4,
  kRGBA = 6,
};

struct PngDetails {
  PngColorType color_type = PngColorType::kGray;
  bool interlaced = false;  // Adam7
  bool has_trns = false;    // a tRNS chunk precedes the first IDAT
};

struct BmpDetails {
  int bits_per_pixel = 0;  // 1, 4, 8, 24, 32
  int compression = 0;     // 0 BI_RGB, 3 BI_BITFIELDS (only 32-bit with 8-bit masks is decoded)
  bool top_down = false;   // negative height in the header
  int dib_header_size = 0;
  int palette_size = 0;       // entries (1/4/8-bit images)
  bool has_alpha = false;     // 32-bit BI_BITFIELDS with alpha mask 0xFF000000
  uint32_t pixel_offset = 0;  // file offset of the pixel array
};

struct PnmDetails {
  int kind = 0;              // 1..6 for P1..P6
  int maxval = 1;            // 1 for P1/P4, else 1..65535
  uint32_t data_offset = 0;  // first byte after the header's final whitespace
};

struct TiffDetails {
  bool big_endian = false;
  int photometric = 0;    // 0 min-is-white, 1 min-is-black, 2 RGB, 3 palette, 6 YCbCr, ...
  int compression = 1;    // 1 none, 5 LZW, 7 JPEG, 8 / 32946 deflate, 32773 PackBits, ...
  int planar_config = 1;  // 1 chunky (interleaved), 2 separate planes
  int sample_format = 1;  // 1 unsigned integer, 2 signed, 3 IEEE float
  bool tiled = false;
  bool has_alpha = false;  // an extra sample after the colour samples
};

struct WebpDetails {
  bool lossless = false;   // VP8L bitstream
  bool has_alpha = false;  // VP8X alpha flag, or VP8L's alpha hint
  bool animated = false;   // VP8X animation flag (decoding refused)
};

struct Jpeg2000Details {
  bool jp2 = false;         // JP2 box format; false: a raw J2K codestream
  bool subsampled = false;  // a component with XRsiz / YRsiz other than 1
  bool is_signed = false;   // a component with signed samples
};

// Header facts. `width`/`height` are raw (as stored); use oriented_size() for the output size.
struct ImageInfo {
  ImageFormat format = ImageFormat::kUnknown;
  int64_t width = 0;
  int64_t height = 0;
  // Samples per pixel as stored: JPEG components (1, 3, 4); PNG 1 gray, 1 palette index, 2
  // gray+alpha, 3 RGB, 4 RGBA; BMP 1 for palette images, 3 for 24-bit, 4 for 32-bit; PNM 1 or 3;
  // TIFF samples per pixel (1 for palette images); WebP 3 or 4 (alpha); JPEG 2000 components.
  int channels = 0;
  // Bits per stored sample: JPEG precision; PNG bit depth (1, 2, 4, 8, 16); BMP bits per pixel
  // divided over the channels (1, 4, 8); PNM 1 (P1/P4), 8 (maxval <= 255) or 16; TIFF
  // BitsPerSample; WebP 8; JPEG 2000 the highest component precision (1..38).
  int bit_depth = 0;
  int orientation = 1;  // EXIF orientation 1..8; 1 when absent, unreadable or out of range
  JpegDetails jpeg;     // valid when format == kJpeg
  PngDetails png;       // valid when format == kPng
  BmpDetails bmp;       // valid when format == kBmp
  PnmDetails pnm;       // valid when format == kPnm
  TiffDetails tiff;     // valid when format == kTiff
  WebpDetails webp;     // valid when format == kWebp
  Jpeg2000Details jp2;  // valid when format == kJpeg2000
};

// Parses the headers. Throws DecodeError for an unknown format, truncated or inconsistent
// headers, zero or out-of-range dimensions (> 2^31 - 1), or a JPEG without SOF or SOS.
// A malformed EXIF block is not an error: it leaves orientation at 1 (the pixel data is intact
// and metadata written by buggy tools is common; we bounds-check every EXIF access instead).
ImageInfo peek_image(const uint8_t* data, size_t size);

// Parses a TIFF-structured EXIF blob (starting at the "II"/"MM" byte-order mark, optionally
// preceded by "Exif\0\0") and returns IFD0's Orientation (1..8), or 1 when absent or invalid.
int parse_exif_orientation(const uint8_t* data, size_t size);

// ---- Orientation and crop-window geometry -------------------------------------------------
//
// EXIF orientation o maps a raw image of size W x H to the oriented image; for oriented pixel
// (xo, yo) the raw pixel is:
//   1: (xo, yo)            2: (W-1-xo, yo)          3: (W-1-xo, H-1-yo)    4: (xo, H-1-yo)
//   5: (yo, xo)            6: (yo, H-1-xo)          7: (W-1-yo, H-1-xo)    8: (W-1-yo, xo)
// (as (x, y)). Orientations 5..8 swap width and height. This matches Pillow's
// ImageOps.exif_transpose, checked on the jpeg_variants/orientation files.

struct ImageSize {
  int64_t width = 0;
  int64_t height = 0;
  bool operator==(const ImageSize&) const = default;
};

// A rectangle of pixels: columns [x, x + w), rows [y, y + h).

// True for orientations 5..8 (the output is transposed).
inline bool orientation_swaps_axes(int orientation) {
  return orientation >= 5 && orientation <= 8;
}

// The output size of `info` (width/height swapped for orientations 5..8 when `adjust`).
ImageSize oriented_size(const ImageInfo& info, bool adjust = true);

// Maps a window given in oriented coordinates of an image whose raw size is `raw` to the raw
// window holding the same pixels; and back. Orientation 1..8 (anything else acts as 1). The
// window must lie inside the image (not checked here: decode_image validates crop windows).
CropWindow oriented_to_raw(const CropWindow& oriented, ImageSize raw, int orientation);
CropWindow raw_to_oriented(const CropWindow& raw_window, ImageSize raw, int orientation);

}  // namespace sluice::codecs
