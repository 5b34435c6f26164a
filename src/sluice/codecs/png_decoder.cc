// PNG decoding through libpng 1.6's low-level API (see image_decoder.h for the contract).
//
// The simplified png_image API is not used: its 16-bit formats are "linear" (gamma-converted),
// and we want the stored samples. libpng errors longjmp back into the two small C-style
// functions below (same scheme as Note [libjpeg errors] in jpeg_decoder.cc); the C++ caller
// throws DecodeError with libpng's message.

#include <png.h>

#include <cstdio>
#include <cstring>

#include "sluice/codecs/decoder_internal.h"
#include "sluice/core/error.h"

namespace sluice::codecs::detail {
namespace {

struct PngContext {
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t pos = 0;
  char message[256] = {};
};

void read_mem(png_structp png, png_bytep out, size_t len) {
  auto* c = static_cast<PngContext*>(png_get_io_ptr(png));
  if (len > c->size - c->pos)
    png_error(png, "the data is truncated (read past the end of the input)");
  std::memcpy(out, c->data + c->pos, len);
  c->pos += len;
}

void on_error(png_structp png, png_const_charp msg) {
  auto* c = static_cast<PngContext*>(png_get_error_ptr(png));
  std::snprintf(c->message, sizeof(c->message), "%s", msg ? msg : "unknown libpng error");
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}  // benign (ancillary-chunk) problems

// Ancillary chunks we never use: libpng discards them without inflating or validating them.
constexpr png_byte kIgnoredChunks[] = {
    'b', 'K', 'G', 'D', 0,   'c', 'H', 'R', 'M', 0,   'e', 'X', 'I', 'f', 0,   'g', 'A', 'M',
    'A', 0,   'h', 'I', 'S', 'T', 0,   'i', 'C', 'C', 'P', 0,   'i', 'T', 'X', 't', 0,   'o',
    'F', 'F', 's', 0,   'p', 'C', 'A', 'L', 0,   'p', 'H', 'Y', 's', 0,   's', 'B', 'I', 'T',
    0,   's', 'C', 'A', 'L', 0,   's', 'P', 'L', 'T', 0,   's', 'R', 'G', 'B', 0,   's', 'T',
    'E', 'R', 0,   't', 'E', 'X', 't', 0,   't', 'I', 'M', 'E', 0,   'z', 'T', 'X', 't', 0};

struct PngHeader {
  png_uint_32 width = 0, height = 0;
  int channels = 0;  // after the transforms: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
  int depth = 0;     // after the transforms: 8 or 16
  size_t rowbytes = 0;
  bool interlaced = false;
};

// C-style: reads IHDR..first IDAT and sets up the transforms.
int read_info_c(png_structp png, png_infop info, int out_depth, PngHeader* h) {
  if (setjmp(png_jmpbuf(png))) return 1;
  png_read_info(png, info);
  int bit_depth = 0, color_type = 0, interlace = 0;
  png_get_IHDR(png, info, &h->width, &h->height, &bit_depth, &color_type, &interlace, nullptr,
               nullptr);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);  // RGBA with tRNS
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (bit_depth == 16) {
    if (out_depth == 8) {
      png_set_strip_16(png);  // high byte (Note [Depth])
    } else {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      png_set_swap(png);  // PNG is big-endian; we return native uint16
#endif
    }
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  h->channels = png_get_channels(png, info);
  h->depth = png_get_bit_depth(png, info);
  h->rowbytes = png_get_rowbytes(png, info);
  h->interlaced = interlace != PNG_INTERLACE_NONE;
  return 0;
}

using PngRowSink = void (*)(void* ctx, const uint8_t* row, int64_t y);

struct RowJob {
  int64_t first_row = 0, end_row = 0;
  uint8_t* row_buf = nullptr;       // non-interlaced: one row
  png_bytepp image_rows = nullptr;  // interlaced: every row of the image
  bool direct = false;
  uint8_t* dst = nullptr;
  ptrdiff_t dst_stride = 0;
  PngRowSink sink = nullptr;
  void* sink_ctx = nullptr;
};

// C-style: reads the image rows [0, end_row) (all rows when interlaced).
int read_rows_c(png_structp png, const RowJob* job) {
  if (setjmp(png_jmpbuf(png))) return 1;
  if (job->image_rows != nullptr) {
    png_read_image(png, job->image_rows);
    for (int64_t y = job->first_row; y < job->end_row; ++y) {
      job->sink(job->sink_ctx, job->image_rows[y], y);
    }
    return 0;
  }
  for (int64_t y = 0; y < job->end_row; ++y) {
    const bool in_window = y >= job->first_row;
    png_bytep row = (in_window && job->direct) ? job->dst + (y - job->first_row) * job->dst_stride
                                               : job->row_buf;
    png_read_row(png, row, nullptr);
    if (in_window && !job->direct) job->sink(job->sink_ctx, row, y);
  }
  return 0;
}

struct PngSinkContext {
  const RegionRequest* req;
  PixelLayout src_layout;
  int src_depth;
  size_t src_pixel_bytes;
};

void sink_row(void* ctx, const uint8_t* row, int64_t y) {
  const auto* c = static_cast<const PngSinkContext*>(ctx);
  const RegionRequest& r = *c->req;
  convert_row(row + r.window.x * c->src_pixel_bytes, c->src_layout, c->src_depth,
              r.dst + (y - r.window.y) * r.dst_stride, r.layout, r.depth, r.window.w);
}

struct PngGuard {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngGuard() {
    if (png != nullptr) png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
  }
};

}  // namespace

void decode_png(const uint8_t* data, size_t size, const ImageInfo& info, const RegionRequest& req,
                ScratchImpl& scratch) {
  PngContext ctx;
  ctx.data = data;
  ctx.size = size;
  PngGuard g;
  g.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
  if (g.png == nullptr) throw OutOfMemory("libpng could not create a read struct");
  g.info = png_create_info_struct(g.png);
  if (g.info == nullptr) throw OutOfMemory("libpng could not create an info struct");
  png_set_read_fn(g.png, &ctx, read_mem);
  // Defence in depth next to decode_image's pixel limit: libpng refuses other IHDR sizes.
  png_set_user_limits(g.png, static_cast<png_uint_32>(info.width),
                      static_cast<png_uint_32>(info.height));
  png_set_keep_unknown_chunks(g.png, PNG_HANDLE_CHUNK_NEVER, nullptr, 0);
  png_set_keep_unknown_chunks(g.png, PNG_HANDLE_CHUNK_NEVER, kIgnoredChunks,
                              static_cast<int>(sizeof(kIgnoredChunks) / 5));

  PngHeader h;
  if (read_info_c(g.png, g.info, req.depth, &h) != 0) {
    throw DecodeError(make_string("PNG: ", ctx.message));
  }
  if (h.width != info.width || h.height != info.height) {
    throw InvalidArgument(make_string("ImageInfo (", info.width, "x", info.height,
                                      ") does not match the PNG data (", h.width, "x", h.height,
                                      ")"));
  }
  static constexpr PixelLayout kLayouts[] = {PixelLayout::kGray, PixelLayout::kGrayAlpha,
                                             PixelLayout::kRGB, PixelLayout::kRGBA};
  if (h.channels < 1 || h.channels > 4 || (h.depth != 8 && h.depth != 16)) {
    throw DecodeError(make_string("PNG: unexpected row format after transforms (", h.channels,
                                  " channels, ", h.depth, " bits)"));
  }
  PngSinkContext sc{&req, kLayouts[h.channels - 1], h.depth,
                    static_cast<size_t>(h.channels) * (h.depth / 8)};
  RowJob job;
  job.first_row = req.window.y;
  job.end_row = req.window.y + req.window.h;
  job.dst = req.dst;
  job.dst_stride = req.dst_stride;
  job.sink = sink_row;
  job.sink_ctx = &sc;
  job.direct = req.window.x == 0 && req.window.w == info.width && sc.src_layout == req.layout &&
               h.depth == req.depth && req.dst_stride == static_cast<ptrdiff_t>(h.rowbytes);
  if (h.interlaced) {
    // Adam7 rows are only complete after the last pass: decode the whole image.
    const size_t ptr_bytes = (h.height * sizeof(png_bytep) + 63) / 64 * 64;
    uint8_t* buf = scratch.rows.get(ptr_bytes + h.rowbytes * h.height);
    job.image_rows = reinterpret_cast<png_bytepp>(buf);
    for (png_uint_32 y = 0; y < h.height; ++y) {
      job.image_rows[y] = buf + ptr_bytes + y * h.rowbytes;
    }
  } else {
    job.row_buf = scratch.rows.get(h.rowbytes);
  }
  if (read_rows_c(g.png, &job) != 0) throw DecodeError(make_string("PNG: ", ctx.message));
}

}  // namespace sluice::codecs::detail
