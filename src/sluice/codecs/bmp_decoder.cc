// Uncompressed BMP: 1/4/8-bit palette, 24-bit BGR, 32-bit BGRX (BI_RGB) or BGRA / BGRX with
// the standard BI_BITFIELDS masks; bottom-up and top-down. Everything else (RLE, 16-bit,
// JPEG/PNG-in-BMP, other masks) is refused with DecodeError. Pillow treats 32-bit BI_RGB as
// RGB with a padding byte, and so do we.

#include <cstring>

#include "sluice/codecs/decoder_internal.h"
#include "sluice/core/bytes.h"
#include "sluice/core/error.h"

namespace sluice::codecs::detail {
namespace {

constexpr size_t kFileHeader = 14;

size_t palette_offset(const BmpDetails& b) {
  // BITMAPINFOHEADER followed by three BI_BITFIELDS masks puts the palette after them; there is
  // no palette for 32-bit images anyway.
  return kFileHeader + static_cast<size_t>(b.dib_header_size);
}

size_t row_stride(int64_t width, int bpp) {
  return static_cast<size_t>((width * bpp + 31) / 32) * 4;
}

}  // namespace

ImageInfo peek_bmp(const uint8_t* d, size_t n) {
  if (n < kFileHeader + 16) {
    throw DecodeError(make_string("BMP is truncated: ", n, " bytes cannot hold its headers"));
  }
  ImageInfo info;
  info.format = ImageFormat::kBmp;
  BmpDetails& b = info.bmp;
  b.pixel_offset = load_le32(d + 10);
  b.dib_header_size = static_cast<int>(load_le32(d + 14));
  const uint8_t* h = d + kFileHeader;
  int64_t width = 0, height = 0;
  int planes = 0;
  uint32_t colors_used = 0;
  if (b.dib_header_size == 12) {  // BITMAPCOREHEADER (OS/2 1.x)
    width = load_le16(h + 4);
    height = load_le16(h + 6);  // WORD: OS/2 1.x bitmaps are always bottom-up
    planes = static_cast<int>(load_le16(h + 8));
    b.bits_per_pixel = static_cast<int>(load_le16(h + 10));
  } else if (b.dib_header_size >= 40 && b.dib_header_size <= 124) {
    if (n < kFileHeader + static_cast<size_t>(b.dib_header_size)) {
      throw DecodeError(make_string("BMP is truncated inside its ", b.dib_header_size,
                                    "-byte info header (", n, " bytes)"));
    }
    width = static_cast<int32_t>(load_le32(h + 4));
    height = static_cast<int32_t>(load_le32(h + 8));
    planes = static_cast<int>(load_le16(h + 12));
    b.bits_per_pixel = static_cast<int>(load_le16(h + 14));
    b.compression = static_cast<int>(load_le32(h + 16));
    colors_used = load_le32(h + 32);
  } else {
    throw DecodeError(make_string("BMP: unsupported DIB header size ", b.dib_header_size));
  }
  if (height < 0) {
    b.top_down = true;
    height = -height;
  }
  if (width <= 0 || height <= 0 || width > 0x7FFFFFFF || height > 0x7FFFFFFF) {
    throw DecodeError(make_string("BMP: invalid dimensions ", width, "x", height));
  }
  if (planes != 1) throw DecodeError(make_string("BMP: invalid plane count ", planes));
  const int bpp = b.bits_per_pixel;
  if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 24 && bpp != 32) {
    throw DecodeError(make_string("BMP: ", bpp, " bits per pixel is not supported"));
  }
  if (b.compression == 3 && bpp == 32) {  // BI_BITFIELDS
    size_t mask_at = kFileHeader + 40;    // after a BITMAPINFOHEADER, or inside a V2+ header
    if (n < mask_at + 12) throw DecodeError("BMP is truncated inside its BI_BITFIELDS masks");
    const uint32_t r = load_le32(d + mask_at), g = load_le32(d + mask_at + 4),
                   bl = load_le32(d + mask_at + 8);
    const uint32_t a = (b.dib_header_size >= 56) ? load_le32(d + mask_at + 12) : 0;
    if (r != 0x00FF0000u || g != 0x0000FF00u || bl != 0x000000FFu || (a != 0 && a != 0xFF000000u)) {
      throw DecodeError(make_string("BMP: unsupported BI_BITFIELDS masks R=0x", std::hex, r,
                                    " G=0x", g, " B=0x", bl, " A=0x", a,
                                    " (only 8-bit BGRA / BGRX is supported)"));
    }
    b.has_alpha = a == 0xFF000000u;
    if (b.dib_header_size == 40) b.dib_header_size += 12;  // palette_offset skips the masks
  } else if (b.compression != 0) {
    static constexpr const char* kNames[] = {"BI_RGB",       "BI_RLE8", "BI_RLE4",
                                             "BI_BITFIELDS", "BI_JPEG", "BI_PNG"};
    throw DecodeError(
        make_string("BMP: compression ",
                    (b.compression >= 0 && b.compression < 6) ? kNames[b.compression] : "(unknown)",
                    " (", b.compression, ") with ", bpp, " bits per pixel is not supported"));
  }
  if (bpp <= 8) {
    const uint32_t max_colors = 1u << bpp;
    if (colors_used > max_colors) {
      throw DecodeError(
          make_string("BMP: palette of ", colors_used, " entries for a ", bpp, "-bit image"));
    }
    b.palette_size = static_cast<int>(colors_used ? colors_used : max_colors);
    const size_t entry = b.dib_header_size == 12 ? 3 : 4;
    if (palette_offset(b) + entry * b.palette_size > n) {
      throw DecodeError(
          make_string("BMP is truncated inside its ", b.palette_size, "-entry palette"));
    }
  }
  info.width = width;
  info.height = height;
  info.channels = bpp <= 8 ? 1 : bpp / 8;
  info.bit_depth = bpp <= 8 ? bpp : 8;
  return info;
}

void decode_bmp(const uint8_t* d, size_t n, const ImageInfo& info, const RegionRequest& req,
                ScratchImpl& scratch) {
  const BmpDetails& b = info.bmp;
  const int bpp = b.bits_per_pixel;
  const size_t stride = row_stride(info.width, bpp);
  if (b.pixel_offset > n || static_cast<size_t>(info.height) > (n - b.pixel_offset) / stride) {
    throw DecodeError(make_string("BMP pixel data is truncated: ", info.width, "x", info.height,
                                  " at ", bpp, " bits needs ", info.height, " rows of ", stride,
                                  " bytes from offset ", b.pixel_offset, ", the file has ", n,
                                  " bytes"));
  }
  // Palette as RGB triplets.
  uint8_t palette[256 * 3];
  if (bpp <= 8) {
    const size_t entry = b.dib_header_size == 12 ? 3 : 4;
    const uint8_t* p = d + palette_offset(b);
    for (int i = 0; i < b.palette_size; ++i, p += entry) {
      palette[3 * i] = p[2], palette[3 * i + 1] = p[1], palette[3 * i + 2] = p[0];
    }
  }
  const CropWindow& w = req.window;
  const PixelLayout src_layout = b.has_alpha ? PixelLayout::kRGBA : PixelLayout::kRGB;
  const int src_ch = layout_channels(src_layout);
  uint8_t* row = scratch.rows.get(static_cast<size_t>(w.w) * src_ch);
  for (int64_t y = w.y; y < w.y + w.h; ++y) {
    const int64_t file_row = b.top_down ? y : info.height - 1 - y;
    const uint8_t* s = d + b.pixel_offset + static_cast<size_t>(file_row) * stride;
    uint8_t* o = row;
    for (int64_t x = w.x; x < w.x + w.w; ++x, o += src_ch) {
      if (bpp <= 8) {
        const int per_byte = 8 / bpp;
        const int shift = 8 - bpp * (1 + static_cast<int>(x % per_byte));
        const int idx = (s[x / per_byte] >> shift) & ((1 << bpp) - 1);
        if (idx >= b.palette_size) {
          throw DecodeError(make_string("BMP: palette index ", idx, " at (", x, ", ", y,
                                        ") is past the ", b.palette_size, "-entry palette"));
        }
        std::memcpy(o, palette + 3 * idx, 3);
      } else {
        const uint8_t* px = s + x * (bpp / 8);
        o[0] = px[2], o[1] = px[1], o[2] = px[0];
        if (src_ch == 4) o[3] = px[3];
      }
    }
    convert_row(row, src_layout, 8, req.dst + (y - w.y) * req.dst_stride, req.layout, req.depth,
                w.w);
  }
}

}  // namespace sluice::codecs::detail
