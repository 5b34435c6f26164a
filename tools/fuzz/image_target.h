#pragma once
// The body of the image fuzz targets (fuzz_image for every format; fuzz_tiff, fuzz_webp and
// fuzz_jpeg2000 for one codec each, so that each gets its own corpus and fuzzing time).
//
// Per input, as libjpeg-turbo's fuzz/decompress.cc does for its decoder:
//  1. parse_exif_orientation over the raw bytes (it accepts any blob) must return 1..8;
//  2. peek_image: DecodeError is the only allowed exception; the header facts must be sane;
//  3. decoded_shape with options chosen from the input's hash (colour, dtype, orientation) and
//     a 1 MP pixel cap; absurd crop windows must be refused with InvalidArgument;
//  4. decode_image of the whole image, every output byte touched;
//  5. decode_image of a crop window chosen inside the image: whenever the full decode
//     succeeded, the cropped one must succeed too and equal that region of the full output bit
//     for bit (image_decoder.h promises exact crops).
// One DecoderScratch is reused across inputs, as a worker thread does, so state leaking from
// one image to the next (Note [Table hygiene]) is exercised too.

#include <cstring>
#include <limits>
#include <vector>

#include "fuzz_common.h"
#include "sluice/codecs/image_decoder.h"
#include "sluice/codecs/image_info.h"
#include "sluice/core/error.h"

namespace sluice::fuzz::image {

using namespace sluice;
using namespace sluice::codecs;
using sluice::fuzz::Choices;
using sluice::fuzz::fuzz_fail;
using sluice::fuzz::fuzz_fail_unexpected;

constexpr int64_t kMaxPixels = int64_t{1} << 20;  // 1 MP, as OSS-Fuzz's libjpeg-turbo target

inline volatile uint64_t g_sink;

inline void check_info(const ImageInfo& info) {
  if (info.format == ImageFormat::kUnknown) fuzz_fail("peek_image returned kUnknown");
  if (info.width < 1 || info.height < 1 || info.width > std::numeric_limits<int32_t>::max() ||
      info.height > std::numeric_limits<int32_t>::max()) {
    fuzz_fail("peek_image returned out-of-range dimensions");
  }
  if (info.orientation < 1 || info.orientation > 8) fuzz_fail("orientation outside 1..8");
  if (info.channels < 1 || info.channels > 255) fuzz_fail("channels out of range");
}

// An arbitrary window, mostly outside or degenerate, for the refusal path of decoded_shape.
inline CropWindow wild_window(Choices& c) {
  static constexpr int64_t kEdge[] = {0,
                                      -1,
                                      1,
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min(),
                                      std::numeric_limits<int32_t>::max(),
                                      int64_t{1} << 40};
  auto pick = [&] {
    return c.one_in(2) ? kEdge[c.below(std::size(kEdge))] : static_cast<int64_t>(c.next());
  };
  return {pick(), pick(), pick(), pick()};
}

// Decodes into a fresh buffer; returns false on DecodeError. Any other exception is a bug.
inline bool decode(const uint8_t* data, size_t size, const ImageInfo& info, const DecodeParams& p,
                   const Shape& shape, DecoderScratch& scratch, std::vector<uint8_t>& out) {
  out.assign(static_cast<size_t>(volume(shape)) * dtype_size(p.dtype), 0xA5);
  try {
    decode_image(data, size, info, p, scratch, out.data());
  } catch (const DecodeError& e) {
    sluice::fuzz::note_expected("decode_image", e);
    return false;
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("decode_image", e);
  }
  g_sink = sluice::fuzz::touch_bytes(out.data(), out.size());
  return true;
}

// Runs the checks above on one input (libFuzzer's return convention: always 0).
inline int run(const uint8_t* data, size_t size) {
  static DecoderScratch scratch;

  // 1. The EXIF parser takes any blob.
  const int exif = parse_exif_orientation(data, size);
  if (exif < 1 || exif > 8) fuzz_fail("parse_exif_orientation returned a value outside 1..8");

  // 2. Headers.
  ImageInfo info;
  try {
    info = peek_image(data, size);
  } catch (const DecodeError& e) {
    sluice::fuzz::note_expected("peek_image", e);
    return 0;
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("peek_image", e);
  }
  check_info(info);

  // 3. Options from the input's hash; the output shape and the limits.
  Choices c(data, size);
  DecodeParams p;
  static constexpr OutputColor kColors[] = {OutputColor::kRGB, OutputColor::kBGR,
                                            OutputColor::kGray, OutputColor::kYCbCr,
                                            OutputColor::kAnyData};
  p.color = kColors[c.below(std::size(kColors))];
  p.dtype = c.one_in(4) ? DType::kUInt16 : DType::kUInt8;
  p.adjust_orientation = !c.one_in(4);
  p.max_pixels = kMaxPixels;
  p.max_jpeg_scans = c.one_in(8) ? 1 + static_cast<int>(c.below(8)) : 100;

  Shape shape;
  try {
    shape = decoded_shape(info, p);
  } catch (const DecodeError& e) {
    sluice::fuzz::note_expected("decoded_shape", e);
    // Over the pixel cap: decode_image must refuse it the same way before allocating anything.
    if (info.width * info.height <= kMaxPixels) fuzz_fail("DecodeError for an image under the cap");
    uint8_t dummy[16];
    try {
      decode_image(data, size, info, p, scratch, dummy);
      fuzz_fail("decode_image accepted an image over max_pixels");
    } catch (const DecodeError&) {
    } catch (const std::exception& e) {
      fuzz_fail_unexpected("decode_image over the cap", e);
    }
    return 0;
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("decoded_shape", e);
  }
  const ImageSize full = oriented_size(info, p.adjust_orientation);
  if (shape.size() != 3 || shape[0] != full.height || shape[1] != full.width ||
      shape[2] != output_channels(info, p.color) || shape[2] < 1 || shape[2] > 4) {
    fuzz_fail("decoded_shape disagrees with oriented_size / output_channels");
  }

  {  // Windows outside the image are InvalidArgument, never UB or a DecodeError.
    DecodeParams bad = p;
    bad.crop = wild_window(c);
    // (Not CropWindow::inside: y + h overflows for such values.)
    const CropWindow& b = *bad.crop;
    const bool fits = b.h > 0 && b.w > 0 && b.y >= 0 && b.x >= 0 && b.h <= full.height &&
                      b.w <= full.width && b.y <= full.height - b.h && b.x <= full.width - b.w;
    if (!fits) {
      try {
        (void)decoded_shape(info, bad);
        fuzz_fail("decoded_shape accepted a window outside the image");
      } catch (const InvalidArgument&) {
      } catch (const std::exception& e) {
        fuzz_fail_unexpected("decoded_shape (bad window)", e);
      }
    }
  }

  // 4. The whole image.
  std::vector<uint8_t> whole;
  const bool whole_ok = decode(data, size, info, p, shape, scratch, whole);

  // 5. A window inside the oriented image; its raw counterpart must round-trip.
  CropWindow w;
  w.h = 1 + c.below(full.height);
  w.w = 1 + c.below(full.width);
  w.y = c.below(full.height - w.h + 1);
  w.x = c.below(full.width - w.w + 1);
  const int orientation = p.adjust_orientation ? info.orientation : 1;
  const ImageSize raw{info.width, info.height};
  const CropWindow r = oriented_to_raw(w, raw, orientation);
  if (!r.inside(raw.height, raw.width) || raw_to_oriented(r, raw, orientation) != w) {
    fuzz_fail("oriented_to_raw / raw_to_oriented do not round-trip");
  }
  p.crop = w;
  Shape crop_shape;
  try {
    crop_shape = decoded_shape(info, p);
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("decoded_shape (window inside)", e);
  }
  if (crop_shape[0] != w.h || crop_shape[1] != w.w || crop_shape[2] != shape[2]) {
    fuzz_fail("decoded_shape of a window is not {h, w, C}");
  }
  std::vector<uint8_t> part;
  const bool part_ok = decode(data, size, info, p, crop_shape, scratch, part);
  if (whole_ok) {
    if (!part_ok) fuzz_fail("the whole image decodes but a window of it does not");
    const size_t px = static_cast<size_t>(shape[2]) * dtype_size(p.dtype);
    const size_t row = static_cast<size_t>(w.w) * px;
    for (int64_t y = 0; y < w.h; ++y) {
      const uint8_t* a = whole.data() + ((w.y + y) * full.width + w.x) * px;
      const uint8_t* b = part.data() + y * row;
      if (std::memcmp(a, b, row) != 0) fuzz_fail("a cropped decode differs from the full decode");
    }
  }
  return 0;
}

}  // namespace sluice::fuzz::image
