#pragma once
// Helpers shared by the codecs tests: file access, an independent libjpeg reference decode
// (plain libjpeg API calls, nothing from our decoder), window cropping and a per-pixel EXIF
// orientation reference. Test-only; not part of the library.

#include <gtest/gtest.h>

#include <algorithm>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

// clang-format off
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include "sluice/codecs/image_decoder.h"
#include "sluice/codecs/image_info.h"
#include "sluice/core/error.h"
#include "sluice/testing/test_data.h"

namespace sluice::codecs::testing {

namespace fs = std::filesystem;

inline std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// Files under `dir` (recursively) whose extension is `ext` (e.g. ".jpg"), sorted.
inline std::vector<fs::path> list_files(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// An interleaved 8-bit (or 16-bit, samples in `data16`) image.
struct Image {
  int64_t width = 0, height = 0;
  int channels = 0;
  std::vector<uint8_t> data;
  std::vector<uint16_t> data16;
};

// Reference JPEG decode with the plain libjpeg API and the same settings djpeg / Pillow use
// (defaults after jpeg_read_header: JDCT_ISLOW, fancy upsampling, block smoothing).
struct RefJpegError {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};
inline void ref_error_exit(j_common_ptr c) {
  auto* e = reinterpret_cast<RefJpegError*>(c->err);
  (*c->err->format_message)(c, e->message);
  std::longjmp(e->jump, 1);
}

// Returns false (and the libjpeg message in `error`) when libjpeg fails. Warnings are counted
// into `warnings`.
inline bool ref_decode_jpeg_c(const uint8_t* data, size_t size, J_COLOR_SPACE space,
                              jpeg_decompress_struct* ci, RefJpegError* err, uint8_t** buf,
                              int64_t* w, int64_t* h, int* c) {
  ci->err = jpeg_std_error(&err->pub);
  err->pub.error_exit = ref_error_exit;
  jpeg_create_decompress(ci);
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(ci);
    return false;
  }
  jpeg_mem_src(ci, data, static_cast<unsigned long>(size));
  jpeg_read_header(ci, TRUE);
  ci->out_color_space = space;
  jpeg_start_decompress(ci);
  *w = ci->output_width, *h = ci->output_height, *c = ci->output_components;
  *buf = static_cast<uint8_t*>(std::malloc(static_cast<size_t>(*w * *h * *c)));
  while (ci->output_scanline < ci->output_height) {
    JSAMPROW row = *buf + static_cast<size_t>(ci->output_scanline) * *w * *c;
    jpeg_read_scanlines(ci, &row, 1);
  }
  jpeg_finish_decompress(ci);
  jpeg_destroy_decompress(ci);
  return true;
}

inline bool ref_decode_jpeg(const std::vector<uint8_t>& bytes, J_COLOR_SPACE space, Image* out,
                            std::string* error = nullptr, long* warnings = nullptr) {
  jpeg_decompress_struct ci;
  RefJpegError err;
  uint8_t* buf = nullptr;
  int64_t w = 0, h = 0;
  int c = 0;
  const bool ok = ref_decode_jpeg_c(bytes.data(), bytes.size(), space, &ci, &err, &buf, &w, &h, &c);
  if (!ok) {
    std::free(buf);
    if (error) *error = err.message;
    return false;
  }
  if (warnings) *warnings = err.pub.num_warnings;
  out->width = w, out->height = h, out->channels = c;
  out->data.assign(buf, buf + w * h * c);
  std::free(buf);
  return true;
}

// Our decoder, returning an Image (8-bit or 16-bit by params.dtype).
inline Image decode(const std::vector<uint8_t>& bytes, const DecodeParams& p,
                    DecoderScratch& scratch) {
  const ImageInfo info = peek_image(bytes.data(), bytes.size());
  const Shape s = decoded_shape(info, p);
  Image img;
  img.height = s[0], img.width = s[1], img.channels = static_cast<int>(s[2]);
  if (p.dtype == DType::kUInt16) {
    img.data16.assign(static_cast<size_t>(volume(s)), 0xA5A5);  // poison
    decode_image(bytes.data(), bytes.size(), info, p, scratch, img.data16.data());
  } else {
    img.data.assign(static_cast<size_t>(volume(s)), 0xA5);  // poison
    decode_image(bytes.data(), bytes.size(), info, p, scratch, img.data.data());
  }
  return img;
}

// Our decoder with a fresh scratch and the given output colour, type and crop.
inline Image decode_as(const std::vector<uint8_t>& bytes, OutputColor color = OutputColor::kRGB,
                       DType dtype = DType::kUInt8, std::optional<CropWindow> crop = {}) {
  DecoderScratch scratch;
  DecodeParams p;
  p.color = color;
  p.dtype = dtype;
  p.crop = crop;
  return decode(bytes, p, scratch);
}

inline Image crop(const Image& src, const CropWindow& w) {
  Image out;
  out.width = w.w, out.height = w.h, out.channels = src.channels;
  const int c = src.channels;
  for (int64_t y = w.y; y < w.y + w.h; ++y) {
    if (!src.data.empty()) {
      auto b = src.data.begin() + (y * src.width + w.x) * c;
      out.data.insert(out.data.end(), b, b + w.w * c);
    } else {
      auto b = src.data16.begin() + (y * src.width + w.x) * c;
      out.data16.insert(out.data16.end(), b, b + w.w * c);
    }
  }
  return out;
}

// Damaged copies of a valid image for decode_damaged: a prefix every `step` bytes, then `trials`
// copies with `flips` random bytes replaced past the first `keep`.
struct Damage {
  size_t step = 1;
  int trials = 100;
  int flips = 3;
  size_t keep = 0;
  uint32_t seed = 1;
};

// Decodes each damaged copy of `bytes`: a truncation decodes or raises DecodeError, a corruption
// decodes or raises a sluice Error; anything else (another exception, a crash) fails the test.
inline void decode_damaged(const std::vector<uint8_t>& bytes, const Damage& d) {
  DecoderScratch scratch;
  for (size_t n = 1; n < bytes.size(); n += d.step) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    try {
      decode(cut, DecodeParams{}, scratch);
    } catch (const DecodeError&) {
    }
  }
  std::mt19937 rng(d.seed);
  for (int i = 0; i < d.trials; ++i) {
    std::vector<uint8_t> bad = bytes;
    for (int k = 0; k < d.flips; ++k) {
      bad[d.keep + rng() % (bad.size() - d.keep)] = static_cast<uint8_t>(rng());
    }
    try {
      decode(bad, DecodeParams{}, scratch);
    } catch (const Error&) {
    }
  }
}

// Per-pixel EXIF orientation reference (the table in image_info.h, checked against Pillow's
// ImageOps.exif_transpose offline).
inline Image orient_reference(const Image& raw, int o) {
  const int64_t W = raw.width, H = raw.height;
  const bool swap = o >= 5 && o <= 8;
  Image out;
  out.width = swap ? H : W, out.height = swap ? W : H, out.channels = raw.channels;
  out.data.resize(raw.data.size());
  for (int64_t yo = 0; yo < out.height; ++yo) {
    for (int64_t xo = 0; xo < out.width; ++xo) {
      int64_t x = xo, y = yo;
      switch (o) {
        case 2:
          x = W - 1 - xo, y = yo;
          break;
        case 3:
          x = W - 1 - xo, y = H - 1 - yo;
          break;
        case 4:
          x = xo, y = H - 1 - yo;
          break;
        case 5:
          x = yo, y = xo;
          break;
        case 6:
          x = yo, y = H - 1 - xo;
          break;
        case 7:
          x = W - 1 - yo, y = H - 1 - xo;
          break;
        case 8:
          x = W - 1 - yo, y = xo;
          break;
        default:
          break;
      }
      for (int k = 0; k < raw.channels; ++k) {
        out.data[(yo * out.width + xo) * raw.channels + k] =
            raw.data[(y * W + x) * raw.channels + k];
      }
    }
  }
  return out;
}

// Describes the first mismatch (or "") between two 8-bit images of the same geometry.
inline std::string first_difference(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height || a.channels != b.channels) {
    return "geometry " + std::to_string(a.width) + "x" + std::to_string(a.height) + "x" +
           std::to_string(a.channels) + " vs " + std::to_string(b.width) + "x" +
           std::to_string(b.height) + "x" + std::to_string(b.channels);
  }
  int64_t count = 0;
  std::string first;
  for (size_t i = 0; i < a.data.size(); ++i) {
    if (a.data[i] != b.data[i]) {
      if (count++ == 0) {
        const int64_t px = static_cast<int64_t>(i) / a.channels;
        first = "first at (x=" + std::to_string(px % a.width) +
                ", y=" + std::to_string(px / a.width) + ", c=" + std::to_string(i % a.channels) +
                "): " + std::to_string(a.data[i]) + " vs " + std::to_string(b.data[i]);
      }
    }
  }
  return count ? std::to_string(count) + " samples differ, " + first : "";
}

}  // namespace sluice::codecs::testing
