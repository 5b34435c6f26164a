// TIFF decoding through libtiff, from memory (TIFFClientOpen over the encoded bytes), first
// page only (see image_decoder.h for the contract).
//
// Decoded: unsigned-integer samples of 1, 2, 4, 8 or 16 bits (1/2/4-bit grey scaled to 8 bits,
// v * 255 / (2^bits - 1)), interleaved (PlanarConfiguration 1), in strips or tiles (8/16-bit),
// any compression libtiff was built with; min-is-black and min-is-white grey (+ alpha), RGB
// (+ alpha), palette (through the 16-bit colour map) and JPEG-compressed YCbCr (libtiff's
// JPEGCOLORMODE_RGB). Refused with DecodeError: separate planes, signed or floating-point
// samples, other photometric interpretations (CMYK, Lab, ...), tiles of packed bits.

#include "sluice/codecs/decoder_internal.h"
#include "sluice/core/error.h"

#if SLUICE_HAS_TIFF

#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

namespace sluice::codecs::detail {
namespace {

struct MemFile {
  const uint8_t* data = nullptr;
  size_t size = 0;
  uint64_t pos = 0;
  std::string error;  // libtiff's first error message
};

tmsize_t mem_read(thandle_t h, void* buf, tmsize_t n) {
  auto* f = static_cast<MemFile*>(h);
  if (n <= 0 || f->pos >= f->size) return 0;
  const size_t k = std::min<uint64_t>(static_cast<uint64_t>(n), f->size - f->pos);
  std::memcpy(buf, f->data + f->pos, k);
  f->pos += k;
  return static_cast<tmsize_t>(k);
}
tmsize_t mem_write(thandle_t, void*, tmsize_t) {
  return -1;
}
toff_t mem_seek(thandle_t h, toff_t off, int whence) {
  auto* f = static_cast<MemFile*>(h);
  const uint64_t base = whence == SEEK_CUR ? f->pos : whence == SEEK_END ? f->size : 0;
  if (off > UINT64_MAX / 2 - base) return static_cast<toff_t>(-1);
  f->pos = base + off;
  return f->pos;
}
int mem_close(thandle_t) {
  return 0;
}
toff_t mem_size(thandle_t h) {
  return static_cast<MemFile*>(h)->size;
}
int mem_map(thandle_t h, void** base, toff_t* size) {
  auto* f = static_cast<MemFile*>(h);
  *base = const_cast<uint8_t*>(f->data);
  *size = f->size;
  return 1;
}
void mem_unmap(thandle_t, void*, toff_t) {}

void keep_message(std::string& into, const char* module, const char* fmt, va_list ap) {
  if (!into.empty()) return;  // the first error is the cause; later ones follow from it
  char buf[512];
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  into = module && *module ? make_string(module, ": ", buf) : std::string(buf);
}

#if TIFFLIB_VERSION >= 20221213
// libtiff >= 4.5: handlers per TIFF handle, so concurrent decodes keep their own messages.
int on_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  keep_message(static_cast<MemFile*>(user)->error, module, fmt, ap);
  return 1;
}
int on_warning(TIFF*, void*, const char*, const char*, va_list) {
  return 1;
}
#else
// Older libtiff: process-wide handlers writing to the decoding thread's file.
thread_local MemFile* tls_file = nullptr;
void on_error_global(const char* module, const char* fmt, va_list ap) {
  if (tls_file != nullptr) keep_message(tls_file->error, module, fmt, ap);
}
void on_warning_global(const char*, const char*, va_list) {}
#endif

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffPtr = std::unique_ptr<TIFF, TiffCloser>;

TiffPtr open_tiff(MemFile& f) {
#if TIFFLIB_VERSION >= 20221213
  TIFFOpenOptions* opts = TIFFOpenOptionsAlloc();
  if (opts == nullptr) throw OutOfMemory("libtiff could not allocate its open options");
  TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, &f);
  TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, &f);
  TIFF* t = TIFFClientOpenExt("", "r", &f, mem_read, mem_write, mem_seek, mem_close, mem_size,
                              mem_map, mem_unmap, opts);
  TIFFOpenOptionsFree(opts);
#else
  static const bool handlers_set = [] {
    TIFFSetErrorHandler(on_error_global);
    TIFFSetWarningHandler(on_warning_global);
    return true;
  }();
  (void)handlers_set;
  tls_file = &f;
  TIFF* t = TIFFClientOpen("", "r", &f, mem_read, mem_write, mem_seek, mem_close, mem_size, mem_map,
                           mem_unmap);
#endif
  if (t == nullptr) {
    throw DecodeError("TIFF: " +
                      (f.error.empty() ? std::string("libtiff cannot open it") : f.error));
  }
  return TiffPtr(t);
}

[[noreturn]] void fail(const MemFile& f, const char* what) {
  throw DecodeError(make_string("TIFF: ", what, f.error.empty() ? "" : ": ", f.error));
}

// How one row of stored samples becomes a row of the source layout.
struct RowFormat {
  int spp = 1;                   // stored samples per pixel
  int bits = 8;                  // stored bits per sample
  int channels = 1;              // of the source layout
  bool invert = false;           // min-is-white
  const uint16_t* cmap[3] = {};  // palette images: the colour map
};

uint32_t sample_bits(const uint8_t* row, uint64_t index, int bits) {
  const uint64_t bit = index * bits;
  const uint32_t byte = row[bit >> 3];
  return (byte >> (8 - bits - (bit & 7))) & ((1u << bits) - 1);
}

// Pixels [x0, x0 + n) of the stored row `raw` into `out` (8-bit, or 16-bit for 16-bit samples
// and palette images).
void unpack(const RowFormat& f, const uint8_t* raw, int64_t x0, int64_t n, uint8_t* out) {
  if (f.cmap[0] != nullptr) {
    auto* o = reinterpret_cast<uint16_t*>(out);
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t at = static_cast<uint64_t>(x0 + i) * f.spp;
      const uint32_t k = f.bits == 8 ? raw[at] : sample_bits(raw, at, f.bits);
      for (int c = 0; c < 3; ++c) o[3 * i + c] = f.cmap[c][k];
    }
    return;
  }
  if (f.bits == 16) {
    const auto* s = reinterpret_cast<const uint16_t*>(raw);
    auto* o = reinterpret_cast<uint16_t*>(out);
    for (int64_t i = 0; i < n; ++i) {
      for (int c = 0; c < f.channels; ++c) {
        const uint16_t v = s[(x0 + i) * f.spp + c];
        o[i * f.channels + c] = f.invert && c == 0 ? 65535 - v : v;
      }
    }
    return;
  }
  const uint32_t max = (1u << f.bits) - 1;
  for (int64_t i = 0; i < n; ++i) {
    for (int c = 0; c < f.channels; ++c) {
      const uint64_t index = static_cast<uint64_t>(x0 + i) * f.spp + c;
      uint32_t v = f.bits == 8 ? raw[index] : sample_bits(raw, index, f.bits) * 255 / max;
      if (f.invert && c == 0) v = 255 - v;
      out[i * f.channels + c] = static_cast<uint8_t>(v);
    }
  }
}

}  // namespace

void decode_tiff(const uint8_t* data, size_t size, const ImageInfo& info, const RegionRequest& req,
                 ScratchImpl& scratch) {
  MemFile f;
  f.data = data;
  f.size = size;
  TiffPtr owner = open_tiff(f);
  TIFF* t = owner.get();
  uint32_t width = 0, height = 0;
  uint16_t spp = 1, bits = 1, photometric = 0, planar = 1, format = 1, compression = 1;
  if (!TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &width) ||
      !TIFFGetField(t, TIFFTAG_IMAGELENGTH, &height))
    fail(f, "no image size");
  // decode_image re-derives `info` from these bytes: a disagreement is a malformed header
  // (e.g. a tag given twice) that libtiff reads differently.
  if (width != info.width || height != info.height) {
    throw DecodeError(make_string("TIFF: inconsistent header: libtiff reads ", width, "x", height,
                                  ", the first IFD says ", info.width, "x", info.height));
  }
  TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &spp);
  TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &compression);
  if (!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &photometric)) photometric = info.tiff.photometric;
  if (spp != info.channels || photometric != info.tiff.photometric) {
    throw DecodeError(make_string(
        "TIFF: inconsistent header: libtiff reads ", spp, " samples per pixel and photometric ",
        photometric, ", the first IFD says ", info.channels, " and ", info.tiff.photometric));
  }
  if (format != SAMPLEFORMAT_UINT) {
    throw DecodeError(make_string("TIFF: SampleFormat ", format,
                                  " is not supported (only unsigned integer samples)"));
  }
  if (planar != PLANARCONFIG_CONTIG && spp > 1) {
    throw DecodeError("TIFF: separate colour planes (PlanarConfiguration 2) are not supported");
  }
  if (bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 16) {
    throw DecodeError(make_string("TIFF: ", bits, "-bit samples are not supported"));
  }
  RowFormat rf;
  rf.spp = spp;
  rf.bits = bits;
  const PixelLayout layout = tiff_layout(info);
  rf.channels = layout_channels(layout);
  int src_depth = bits == 16 ? 16 : 8;
  switch (photometric) {
    case PHOTOMETRIC_MINISWHITE:
      rf.invert = true;
      break;
    case PHOTOMETRIC_MINISBLACK:
    case PHOTOMETRIC_RGB:
      break;
    case PHOTOMETRIC_YCBCR:
      if (compression != COMPRESSION_JPEG) {
        throw DecodeError("TIFF: YCbCr images are supported only with JPEG compression");
      }
      TIFFSetField(t, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);  // libjpeg converts to RGB
      break;
    case PHOTOMETRIC_PALETTE: {
      uint16_t *r = nullptr, *g = nullptr, *b = nullptr;
      if (bits > 8 || !TIFFGetField(t, TIFFTAG_COLORMAP, &r, &g, &b)) {
        fail(f, "a palette image without a usable colour map");
      }
      rf.cmap[0] = r, rf.cmap[1] = g, rf.cmap[2] = b;
      src_depth = 16;
      break;
    }
    default:
      throw DecodeError(make_string("TIFF: photometric interpretation ", photometric,
                                    " is not supported (grey, RGB, palette, JPEG YCbCr are)"));
  }
  if (spp < (photometric == PHOTOMETRIC_PALETTE ? 1 : rf.channels)) {
    throw DecodeError(make_string("TIFF: ", spp, " samples per pixel are too few for ",
                                  "photometric interpretation ", photometric));
  }

  const bool tiled = TIFFIsTiled(t);
  uint32_t tw = width, th = 1;
  if (tiled) {
    if (!TIFFGetField(t, TIFFTAG_TILEWIDTH, &tw) || !TIFFGetField(t, TIFFTAG_TILELENGTH, &th) ||
        tw == 0 || th == 0) {
      fail(f, "a tiled image without tile sizes");
    }
    if (bits < 8) throw DecodeError("TIFF: tiles of 1, 2 or 4-bit samples are not supported");
    // Far larger tiles than the image are a decompression bomb, not an image.
    if (uint64_t{tw} * th > std::max<uint64_t>(uint64_t{1} << 24, 4 * uint64_t{width} * height)) {
      throw DecodeError(
          make_string("TIFF: ", tw, "x", th, " tiles for a ", width, "x", height, " image"));
    }
  }
  const size_t pixel_bytes = static_cast<size_t>(spp) * bits / 8;  // tiles: bits >= 8
  const size_t row_bytes = tiled ? size_t{width} * pixel_bytes : TIFFScanlineSize64(t);
  const size_t tile_bytes = tiled ? TIFFTileSize64(t) : 0;
  const size_t band_rows = tiled ? th : 1;
  const size_t unpacked_bytes = static_cast<size_t>(req.window.w) * rf.channels * 2;
  if (row_bytes == 0) fail(f, "cannot size a row");
  uint8_t* buf = scratch.rows.get(band_rows * row_bytes + tile_bytes + unpacked_bytes + 64);
  uint8_t* band = buf;
  uint8_t* tile = band + band_rows * row_bytes;
  uint8_t* unpacked =
      tile + tile_bytes + 32 - (reinterpret_cast<uintptr_t>(tile + tile_bytes) % 32);

  const int64_t y_end = req.window.y + req.window.h;
  auto emit = [&](const uint8_t* raw, int64_t y) {
    if (y < req.window.y || y >= y_end) return;
    unpack(rf, raw, req.window.x, req.window.w, unpacked);
    convert_row(unpacked, layout, src_depth, req.dst + (y - req.window.y) * req.dst_stride,
                req.layout, req.depth, req.window.w);
  };
  if (!tiled) {
    // Compressed strips decode front to back: read every row up to the window's last.
    for (int64_t y = 0; y < y_end; ++y) {
      if (TIFFReadScanline(t, band, static_cast<uint32_t>(y), 0) < 0) fail(f, "cannot read a row");
      emit(band, y);
    }
    return;
  }
  const int64_t x_end = req.window.x + req.window.w;
  for (int64_t ty = req.window.y / th * th; ty < y_end; ty += th) {
    for (int64_t tx = req.window.x / tw * tw; tx < x_end; tx += tw) {
      if (TIFFReadTile(t, tile, static_cast<uint32_t>(tx), static_cast<uint32_t>(ty), 0, 0) < 0) {
        fail(f, "cannot read a tile");
      }
      const size_t cols = std::min<int64_t>(tw, width - tx);
      for (size_t r = 0; r < th; ++r) {
        std::memcpy(band + r * row_bytes + tx * pixel_bytes, tile + r * tw * pixel_bytes,
                    cols * pixel_bytes);
      }
    }
    const int64_t rows = std::min<int64_t>(th, height - ty);
    for (int64_t r = 0; r < rows; ++r) emit(band + r * row_bytes, ty + r);
  }
}

}  // namespace sluice::codecs::detail

#else  // !SLUICE_HAS_TIFF

namespace sluice::codecs::detail {

void decode_tiff(const uint8_t*, size_t, const ImageInfo&, const RegionRequest&, ScratchImpl&) {
  throw DecodeError(
      "TIFF decoding is not available: Sluice was built without libtiff (install libtiff-dev "
      "and rebuild)");
}

}  // namespace sluice::codecs::detail

#endif
