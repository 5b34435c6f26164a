// Netpbm PBM / PGM / PPM: P1..P3 (plain text) and P4..P6 (binary), maxval 1..65535.
// Samples are rescaled from maxval to the output's full range (image_decoder.h); P1/P4 bits
// are 1 = black. PAM (P7) and multi-image files (only the first image is read) are not
// supported beyond that.

#include <algorithm>

#include "sluice/codecs/decoder_internal.h"
#include "sluice/core/error.h"

namespace sluice::codecs::detail {
namespace {

bool is_space(uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Skips whitespace and '#' comments (to the end of the line).
size_t skip_space(const uint8_t* d, size_t n, size_t pos) {
  while (pos < n) {
    if (is_space(d[pos])) {
      ++pos;
    } else if (d[pos] == '#') {
      while (pos < n && d[pos] != '\n' && d[pos] != '\r') ++pos;
    } else {
      break;
    }
  }
  return pos;
}

// Reads a decimal number at `pos` (after skip_space); throws on a non-digit or overflow.
uint32_t read_number(const uint8_t* d, size_t n, size_t& pos, const char* what) {
  pos = skip_space(d, n, pos);
  if (pos >= n) throw DecodeError(make_string("PNM is truncated: missing ", what));
  if (d[pos] < '0' || d[pos] > '9') {
    throw DecodeError(make_string("PNM: expected ", what, " at offset ", pos, ", found byte 0x",
                                  std::hex, int(d[pos])));
  }
  uint64_t v = 0;
  while (pos < n && d[pos] >= '0' && d[pos] <= '9') {
    v = v * 10 + (d[pos++] - '0');
    if (v > 0x7FFFFFFFu) throw DecodeError(make_string("PNM: ", what, " is too large"));
  }
  return static_cast<uint32_t>(v);
}

}  // namespace

ImageInfo peek_pnm(const uint8_t* d, size_t n) {
  ImageInfo info;
  info.format = ImageFormat::kPnm;
  PnmDetails& p = info.pnm;
  p.kind = d[1] - '0';
  const bool bitmap = p.kind == 1 || p.kind == 4;
  size_t pos = 2;
  const uint32_t w = read_number(d, n, pos, "the width");
  const uint32_t h = read_number(d, n, pos, "the height");
  p.maxval = bitmap ? 1 : static_cast<int>(read_number(d, n, pos, "the maxval"));
  if (w == 0 || h == 0) throw DecodeError(make_string("PNM: invalid dimensions ", w, "x", h));
  if (p.maxval < 1 || p.maxval > 65535) {
    throw DecodeError(make_string("PNM: maxval ", p.maxval, " is outside 1..65535"));
  }
  // Exactly one whitespace byte separates the header from the data.
  if (pos < n && !is_space(d[pos])) {
    throw DecodeError(make_string("PNM: the header's last number is followed by byte 0x", std::hex,
                                  int(d[pos]), " instead of whitespace"));
  }
  p.data_offset = static_cast<uint32_t>(std::min(n, pos + 1));
  info.width = w;
  info.height = h;
  info.channels = (p.kind == 3 || p.kind == 6) ? 3 : 1;
  info.bit_depth = bitmap ? 1 : (p.maxval < 256 ? 8 : 16);
  return info;
}

void decode_pnm(const uint8_t* d, size_t n, const ImageInfo& info, const RegionRequest& req,
                ScratchImpl& scratch) {
  const PnmDetails& p = info.pnm;
  const int ch = info.channels;
  const int64_t W = info.width;
  const uint32_t out_max = req.depth == 8 ? 255u : 65535u;
  const uint32_t maxval = static_cast<uint32_t>(p.maxval);
  auto scale = [&](uint32_t v) -> uint32_t {
    if (maxval == out_max) return v;
    return static_cast<uint32_t>(
        std::min<uint64_t>(out_max, (uint64_t{v} * out_max + maxval / 2) / maxval));
  };
  const size_t elem = req.depth / 8;
  uint8_t* row = scratch.rows.get(static_cast<size_t>(W) * ch * elem);
  auto put = [&](int64_t i, uint32_t v) {
    if (elem == 1) {
      row[i] = static_cast<uint8_t>(v);
    } else {
      reinterpret_cast<uint16_t*>(row)[i] = static_cast<uint16_t>(v);
    }
  };
  const PixelLayout layout = ch == 1 ? PixelLayout::kGray : PixelLayout::kRGB;
  const CropWindow& win = req.window;
  auto emit = [&](int64_t y) {
    convert_row(row + win.x * ch * elem, layout, req.depth, req.dst + (y - win.y) * req.dst_stride,
                req.layout, req.depth, win.w);
  };
  size_t pos = p.data_offset;

  if (p.kind >= 4) {  // binary: rows are addressable, read only the window's
    const size_t bps = maxval < 256 ? 1 : 2;
    const size_t stride = p.kind == 4 ? static_cast<size_t>((W + 7) / 8) : W * ch * bps;
    if (pos > n || static_cast<size_t>(info.height) > (n - pos) / stride) {
      throw DecodeError(make_string("PNM pixel data is truncated: ", info.height, " rows of ",
                                    stride, " bytes from offset ", pos, ", the file has ", n,
                                    " bytes"));
    }
    for (int64_t y = win.y; y < win.y + win.h; ++y) {
      const uint8_t* s = d + pos + static_cast<size_t>(y) * stride;
      if (p.kind == 4) {
        for (int64_t x = 0; x < W; ++x) put(x, ((s[x >> 3] >> (7 - (x & 7))) & 1) ? 0 : out_max);
      } else {
        for (int64_t i = 0; i < W * ch; ++i) {
          const uint32_t v = bps == 1 ? s[i] : (uint32_t{s[2 * i]} << 8) | s[2 * i + 1];
          put(i, scale(std::min(v, maxval)));
        }
      }
      emit(y);
    }
    return;
  }

  // Plain text: parse sequentially up to the window's last row.
  for (int64_t y = 0; y < win.y + win.h; ++y) {
    for (int64_t i = 0; i < W * ch; ++i) {
      uint32_t v;
      if (p.kind == 1) {  // one character per pixel, separators optional
        pos = skip_space(d, n, pos);
        if (pos >= n) throw DecodeError(make_string("PBM pixel data is truncated at row ", y));
        if (d[pos] != '0' && d[pos] != '1') {
          throw DecodeError(make_string("PBM: invalid pixel character 0x", std::hex, int(d[pos]),
                                        std::dec, " at offset ", pos));
        }
        v = d[pos++] == '1' ? 0 : out_max;
      } else {
        v = read_number(d, n, pos, "a sample");
        if (v > maxval) {
          throw DecodeError(
              make_string("PNM: sample ", v, " at row ", y, " exceeds maxval ", maxval));
        }
        v = scale(v);
      }
      put(i, v);
    }
    if (y >= win.y) emit(y);
  }
}

}  // namespace sluice::codecs::detail
