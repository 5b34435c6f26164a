#pragma once
// CPU image decoding: JPEG (libjpeg-turbo, libjpeg API), PNG (libpng 1.6), BMP and PNM, and
// where Sluice was built with their libraries TIFF (libtiff), WebP (libwebp) and JPEG 2000
// (OpenJPEG); without one, decode_image raises DecodeError naming the package to install.
// The format comes from the bytes (detect_format), never from a file name.
//
// Usage (one DecoderScratch per thread, see below):
//   ImageInfo info = peek_image(data, size);                 // headers only
//   Shape shape = decoded_shape(info, params);                // {H, W, C} of the output
//   buffer of volume(shape) * dtype_size(params.dtype) bytes
//   decode_image(data, size, info, params, scratch, buffer);  // HWC, interleaved
//
// Output colour (DecodeParams::color):
//   kRGB, kBGR   3 channels. Alpha is dropped without compositing (Note [Alpha]).
//   kGray        1 channel. JPEG: libjpeg's JCS_GRAYSCALE output (the stored Y of YCbCr files,
//                libjpeg's RGB->grey for RGB files); other formats and CMYK JPEGs: Pillow's
//                convert('L') integer formula (Note [Grey from colour] in pixel_convert.h).
//   kYCbCr       3 channels, JFIF full range. JPEG YCbCr files: libjpeg's JCS_YCbCr output;
//                everything else: libjpeg's encoder formula (Note [YCbCr]).
//   kAnyData     the file's own channels: JPEG grey 1, YCbCr/RGB 3 (as RGB), CMYK/YCCK 3 (as
//                RGB, Note [CMYK]); PNG grey 1, grey+alpha 2, RGB 3, RGBA 4, palette 3 (4 when a
//                tRNS chunk gives it alpha; grey/RGB tRNS colour keys are ignored); BMP 3 (palette
//                and 24-bit, and 32-bit without an alpha mask) or 4 (32-bit BI_BITFIELDS with an
//                alpha mask); PNM 1 (P1, P2, P4, P5) or 3 (P3, P6); TIFF grey 1, grey+alpha
//                2, RGB 3, RGBA 4 (samples past the fourth dropped), palette 3, JPEG YCbCr 3;
//                WebP 3, or 4 with alpha; JPEG 2000 its components (1..4).
//
// Output depth (DecodeParams::dtype): kUInt8 (default) or kUInt16. 16-bit PNGs, TIFFs and JPEG
// 2000s and PNMs with maxval > 255 keep their precision in kUInt16 (TIFF palettes: the 16-bit
// colour map); 8-bit data is widened exactly (v * 257); 16-bit data requested as kUInt8 keeps
// the high byte (Note [Depth]). PNM samples are rescaled
// from maxval to the output's full range with round-half-up: (v * M + maxval / 2) / maxval,
// M = 255 or 65535 (Pillow rounds the same value half-to-even). P1/P4: 1 = black.
//
// Orientation: with adjust_orientation (default) the EXIF orientation from peek_image (TIFF:
// the Orientation tag of the first IFD; WebP and JPEG 2000: none) is applied, as Pillow's
// ImageOps.exif_transpose does (geometry in image_info.h). The crop window is given in these output
// (oriented) coordinates; it is mapped to the stored grid, that region is decoded, then rotated /
// flipped. Without a transform, pixels go straight into `out`.
//
// JPEG specifics: JDCT_ISLOW, fancy upsampling on, no DCT scaling (djpeg / Pillow defaults), so
// outputs equal a plain libjpeg-turbo full decode bit for bit. With a crop window only the
// needed rows and iMCU columns are decoded (jpeg_skip_scanlines / jpeg_crop_scanline, then
// jpeg_abort_decompress after the window's last row); one extra iMCU decoded left and right of
// the window keeps the fancy-upsampled edge pixels identical to a full decode (Note [Exact
// crop] in jpeg_decoder.cc). 12-bit, lossless (SOF3) and hierarchical JPEGs are refused with
// DecodeError (libjpeg-turbo 2.1.5 cannot decode them). The reused decompressor never lends
// one image's quantisation / Huffman tables to the next (Note [Table hygiene]).
//
// Note [Corrupt data policy]  Truncated or corrupt data is a DecodeError, never a silently
// grey-filled image. JPEG: every libjpeg warning is fatal except those about metadata only
// (unknown Adobe transform code, unknown JFIF revision, bad ICC marker): in particular
// "Premature end of JPEG file" (truncation, also a missing EOI), "Corrupt JPEG data: ..."
// (bad Huffman / arithmetic codes, extraneous bytes, premature end of data segment), wrong
// restart markers and inconsistent progression. Bit errors that libjpeg cannot detect still
// decode (to wrong pixels). PNG: libpng errors, including CRC errors in critical chunks and
// truncated or corrupt IDAT data; ancillary chunks other than tRNS are skipped unread (no
// text / ICC / EXIF inflation, which also defuses zTXt "bombs"); IEND and anything after the
// complete image data are not read (Pillow accepts a missing IEND too). BMP / PNM: pixel data
// shorter than the header implies, palette indices past the palette, plain-text PNM samples
// above maxval (binary ones are clamped to maxval, as Pillow does). A cropped decode stops
// after the window's last row, so corruption below the window is not seen (the pixels it
// returns are still exact).
//
// Limits, checked from the header before anything is allocated (decoded_shape already throws):
// max_pixels on the stored width * height (Pillow's MAX_IMAGE_PIXELS by default; 0 =
// unlimited), and for JPEG a scan limit enforced by a libjpeg progress monitor
// (DALI_MAX_JPEG_SCANS' default 256; 0 = unlimited) against progressive "scan bombs".

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "sluice/codecs/image_info.h"
#include "sluice/core/dtype.h"
#include "sluice/core/shape.h"

namespace sluice::codecs {

namespace detail {
struct ScratchImpl;
}  // namespace detail

enum class OutputColor : uint8_t { kRGB, kBGR, kGray, kYCbCr, kAnyData };

inline constexpr int64_t kDefaultMaxPixels = 89'478'485;  // Pillow's Image.MAX_IMAGE_PIXELS
inline constexpr int kDefaultMaxJpegScans = 256;          // DALI_MAX_JPEG_SCANS' default

struct DecodeParams {
  OutputColor color = OutputColor::kRGB;
  bool adjust_orientation = true;  // apply the EXIF orientation
  std::optional<CropWindow> crop;  // in output (oriented) coordinates; nullopt = whole image
  DType dtype = DType::kUInt8;     // kUInt8 or kUInt16
  int64_t max_pixels = kDefaultMaxPixels;     // stored width * height; 0 = unlimited
  int max_jpeg_scans = kDefaultMaxJpegScans;  // 0 = unlimited
};

// Per-thread reusable decoder state: one libjpeg decompressor (created on first use, reset with
// jpeg_abort_decompress between images, also after errors) and grow-only byte buffers for rows
// and for the intermediate image of oriented / interlaced decodes. Steady-state JPEG decoding
// thus allocates nothing per image beyond libjpeg's own pools.
//
// Thread safety: none. Use exactly one DecoderScratch per thread (e.g. indexed by the thread
// pool's thread index) and never pass the same object to two concurrent decode_image calls.
// Not copyable or movable (libjpeg holds pointers into it). The buffers keep their high-water
// size until release_buffers().
class DecoderScratch {
 public:
  DecoderScratch();
  ~DecoderScratch();
  DecoderScratch(const DecoderScratch&) = delete;
  DecoderScratch& operator=(const DecoderScratch&) = delete;

  void release_buffers();       // frees the grow-only buffers (keeps the libjpeg object)
  size_t buffer_bytes() const;  // bytes currently held by the grow-only buffers

  detail::ScratchImpl& impl() { return *impl_; }

 private:
  std::unique_ptr<detail::ScratchImpl> impl_;
};

// Channels of the output for `color` (see the table above).
int output_channels(const ImageInfo& info, OutputColor color);

// Whether the decoded samples have more than 8 bits (16-bit PNG, TIFF and PNM, JPEG 2000 deeper
// than 8 bits, TIFF palettes' 16-bit colour maps): only DType kUInt16 keeps them exactly.
bool has_deep_samples(const ImageInfo& info);

// {H, W, C} of decode_image's output. Throws DecodeError when the stored size exceeds
// params.max_pixels (so a caller never sizes a buffer for an over-limit image), and
// InvalidArgument for an unknown format, a crop window that is empty or outside the oriented
// image, or a dtype other than kUInt8 / kUInt16.
Shape decoded_shape(const ImageInfo& info, const DecodeParams& params);

// Decodes into `out` (volume(decoded_shape(info, params)) elements of params.dtype, HWC,
// densely packed). `info` must come from peek_image on the same bytes (checked against what
// the decoders read: InvalidArgument on mismatch). Throws DecodeError for corrupt or
// unsupported data and for images over the limits; `out` may then be partly written.
// `scratch` stays usable after any exception.
void decode_image(const uint8_t* data, size_t size, const ImageInfo& info,
                  const DecodeParams& params, DecoderScratch& scratch, void* out);

}  // namespace sluice::codecs
