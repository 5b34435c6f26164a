#pragma once
// Row-wise pixel layout / colour / depth conversion shared by the CPU decoders.
//
// Formulas (documented here once; the decoders and tests refer to this note):
//
// Note [Grey from colour]  Pillow's convert('L') formula (Pillow 9.4 Convert.c, L24), exact:
//   Y = (R * 19595 + G * 38470 + B * 7471 + 0x8000) >> 16
// The weights are libjpeg's FIX(0.299), FIX(0.587), FIX(0.114) at 16 fractional bits, so this
// is also the Y of Note [YCbCr] and what libjpeg's own RGB->grey conversion computes. Alpha is
// ignored (dropped) as Pillow does.
//
// Note [YCbCr]  JFIF full-range BT.601, computed with libjpeg's integer encoder formula
// (jccolor.c, 16 fractional bits), with M = 2^(depth-1) (128 for 8-bit, 32768 for 16-bit):
//   Y  = ( 19595 R + 38470 G +  7471 B + 32768)             >> 16
//   Cb = (-11059 R - 21709 G + 32768 B + (M << 16) + 32767) >> 16
//   Cr = ( 32768 R - 27439 G -  5329 B + (M << 16) + 32767) >> 16
// JPEG sources instead use libjpeg's JCS_YCbCr output (the stored samples, no round trip).
//
// Note [CMYK]  JPEG CMYK/YCCK is read through libjpeg's JCS_CMYK output and converted like
// Pillow 9.4 does: Pillow always assumes Adobe polarity (stored = 255 - ink, rawmode "CMYK;I")
// and then applies cmyk2rgb. With stored samples (c, m, y, k):
//   R = clip(k - (t = (255 - c) * k + 128, ((t >> 8) + t) >> 8)), same for G (m), B (y).
// i.e. R ~= c * k / 255. Verified bit-exact against Pillow offline (see pixel_convert_test.cc).
//
// Note [Depth]  Colour conversion runs at the lower of the source and output depths: 16-bit
// sources requested as 8-bit are first narrowed with v >> 8 (libpng's png_set_strip_16; the
// high byte, as Pillow's "RGB;16B" raw mode does); 8-bit sources requested as 16-bit are
// converted at 8 bits and then widened with v * 257 (exact: 255 -> 65535).
//
// Note [Alpha]  Alpha is dropped without compositing when the output has none (Pillow's
// convert('RGB') does the same); an output with alpha from a source without it gets opaque
// alpha (only reachable when libpng returns fewer channels than the header announced).

#include <cstddef>
#include <cstdint>

namespace sluice::codecs {

// Interleaved pixel layouts. kCmykInverted is a JPEG-only source layout (Note [CMYK]).
enum class PixelLayout : uint8_t { kGray, kGrayAlpha, kRGB, kRGBA, kBGR, kYCbCr, kCmykInverted };

constexpr int layout_channels(PixelLayout l) {
  switch (l) {
    case PixelLayout::kGray:
      return 1;
    case PixelLayout::kGrayAlpha:
      return 2;
    case PixelLayout::kRGB:
    case PixelLayout::kBGR:
    case PixelLayout::kYCbCr:
      return 3;
    case PixelLayout::kRGBA:
    case PixelLayout::kCmykInverted:
      return 4;
  }
  return 0;
}

// Converts `n` pixels from `src` (layout `sl`, `src_depth` 8 or 16 bits per sample, samples as
// uint8_t or native-endian uint16_t) to `dst` (layout `dl`, `dst_depth` 8 or 16); src and dst
// must not overlap. Same layout: a memcpy, or a per-sample widen / narrow (Note [Depth]).
// Otherwise kYCbCr is no source layout and kCmykInverted is an 8-bit source layout only; those
// programming errors, and depths other than 8 / 16, throw sluice::Error.
void convert_row(const void* src, PixelLayout sl, int src_depth, void* dst, PixelLayout dl,
                 int dst_depth, int64_t n);

}  // namespace sluice::codecs
