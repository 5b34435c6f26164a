// PNG decoding: every png_variants file decodes (or, for the corrupt PngSuite files, raises
// DecodeError); pixel values against libpng called directly here with libpng's own
// transforms (expand, gray_to_rgb, strip_alpha, strip_16), plus Pillow-derived constants.

#include <gtest/gtest.h>
#include <png.h>

#include <csetjmp>
#include <cstring>

#include "sluice/codecs/codec_test_util.h"

namespace sluice::codecs {
namespace {

using testing::crop;
using testing::decode;
using testing::first_difference;
using testing::Image;
using testing::list_files;
using testing::read_file;

enum class RefMode {
  kRgb8,     // expand + gray_to_rgb + strip_alpha + strip_16: 8-bit RGB
  kNative8,  // palette and low-bit grey expanded, strip_16
  kNative16  // as kNative8 but 16-bit samples kept (and byte-swapped to host order)
};

struct RefReader {
  const uint8_t* data;
  size_t size, pos;
};

void ref_read(png_structp png, png_bytep out, size_t n) {
  auto* r = static_cast<RefReader*>(png_get_io_ptr(png));
  if (n > r->size - r->pos) png_error(png, "eof");
  std::memcpy(out, r->data + r->pos, n);
  r->pos += n;
}

void ref_warning(png_structp, png_const_charp) {}  // e.g. iCCP complaints: not our concern

// Plain libpng decode. C-style frame: only POD locals across setjmp.
bool ref_decode_png_c(png_structp png, png_infop info, RefMode mode, Image* out,
                      std::vector<png_bytep>* rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_info(png, info);
  const int ct = png_get_color_type(png, info);
  const int depth = png_get_bit_depth(png, info);
  // Palette -> RGB, or RGBA with tRNS; grey / RGB tRNS colour keys are not expanded to alpha
  // (the documented ANY_DATA semantics), so low-bit grey is only scaled to 8 bits.
  if (ct == PNG_COLOR_TYPE_PALETTE) png_set_expand(png);
  if (ct == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (mode == RefMode::kRgb8) {
    png_set_gray_to_rgb(png);
    png_set_strip_alpha(png);
  }
  if (depth == 16) {
    if (mode == RefMode::kNative16) {
      png_set_swap(png);
    } else {
      png_set_strip_16(png);
    }
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  out->width = png_get_image_width(png, info);
  out->height = png_get_image_height(png, info);
  out->channels = png_get_channels(png, info);
  const size_t rowbytes = png_get_rowbytes(png, info);
  const bool wide = png_get_bit_depth(png, info) == 16;
  if (wide) {
    out->data16.resize(rowbytes / 2 * out->height);
  } else {
    out->data.resize(rowbytes * out->height);
  }
  rows->resize(out->height);
  for (int64_t y = 0; y < out->height; ++y) {
    (*rows)[y] = wide ? reinterpret_cast<png_bytep>(out->data16.data() + y * rowbytes / 2)
                      : out->data.data() + y * rowbytes;
  }
  png_read_image(png, rows->data());
  return true;
}

bool ref_decode_png(const std::vector<uint8_t>& bytes, RefMode mode, Image* out) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, ref_warning);
  png_infop info = png_create_info_struct(png);
  RefReader r{bytes.data(), bytes.size(), 0};
  png_set_read_fn(png, &r, ref_read);
  std::vector<png_bytep> rows;
  const bool ok = ref_decode_png_c(png, info, mode, out, &rows);
  png_destroy_read_struct(&png, &info, nullptr);
  return ok;
}

std::string first_difference16(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height || a.channels != b.channels) return "geometry";
  for (size_t i = 0; i < a.data16.size(); ++i) {
    if (a.data16[i] != b.data16[i]) {
      return "sample " + std::to_string(i) + ": " + std::to_string(a.data16[i]) + " vs " +
             std::to_string(b.data16[i]);
    }
  }
  return "";
}

TEST(PngDecoder, EveryVariantMatchesLibpng) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  auto files = list_files(data / "png_variants" / "pngsuite", ".png");
  auto photo = list_files(data / "png_variants" / "photo", ".png");
  files.insert(files.end(), photo.begin(), photo.end());
  ASSERT_EQ(files.size(), 119u);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    const auto bytes = read_file(f);
    const ImageInfo info = peek_image(bytes.data(), bytes.size());
    ASSERT_EQ(info.format, ImageFormat::kPng);
    Image ref;
    // RGB: drops alpha, replicates grey, keeps the high byte of 16-bit samples.
    ASSERT_TRUE(ref_decode_png(bytes, RefMode::kRgb8, &ref));
    DecodeParams p;
    ASSERT_EQ(first_difference(decode(bytes, p, scratch), ref), "");
    // ANY_DATA keeps the file's channels (palette: RGB, or RGBA with tRNS).
    ASSERT_TRUE(ref_decode_png(bytes, RefMode::kNative8, &ref));
    p.color = OutputColor::kAnyData;
    const Image any = decode(bytes, p, scratch);
    EXPECT_EQ(any.channels, output_channels(info, OutputColor::kAnyData));
    ASSERT_EQ(first_difference(any, ref), "");
    // 16-bit output keeps 16-bit samples; 8-bit data is widened by 257.
    p.dtype = DType::kUInt16;
    const Image any16 = decode(bytes, p, scratch);
    if (info.bit_depth == 16) {
      ASSERT_TRUE(ref_decode_png(bytes, RefMode::kNative16, &ref));
      ASSERT_EQ(first_difference16(any16, ref), "");
    } else {
      ASSERT_EQ(any16.data16.size(), any.data.size());
      for (size_t i = 0; i < any.data.size(); ++i) ASSERT_EQ(any16.data16[i], any.data[i] * 257);
    }
  }
}

TEST(PngDecoder, CorruptPngSuiteFilesAreRejected) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto files = list_files(data / "png_variants" / "pngsuite_corrupt", ".png");
  ASSERT_EQ(files.size(), 5u);
  for (const auto& f : files) {
    const auto bytes = read_file(f);
    EXPECT_THROW(decode(bytes, DecodeParams{}, scratch), DecodeError) << f;
  }
  // The scratch still works afterwards.
  const auto ok = read_file(data / "png_variants" / "pngsuite" / "basn2c08.png");
  EXPECT_NO_THROW(decode(ok, DecodeParams{}, scratch));
}

TEST(PngDecoder, InterlacedEqualsNonInterlaced) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto suite = data / "png_variants" / "pngsuite";
  int pairs = 0;
  for (const auto& f : list_files(suite, ".png")) {
    const std::string name = f.filename().string();
    if (name.size() < 5 || name[3] != 'i') continue;  // basi*, bgai*, s01i* ...
    std::string plain = name;
    plain[3] = 'n';
    if (!testing::fs::exists(suite / plain)) continue;
    DecodeParams p;
    p.color = OutputColor::kAnyData;
    EXPECT_EQ(first_difference(decode(read_file(f), p, scratch),
                               decode(read_file(suite / plain), p, scratch)),
              "")
        << name;
    ++pairs;
  }
  EXPECT_GE(pairs, 30);
  const Image adam7 =
      decode(read_file(data / "png_variants" / "photo" / "gen_chelsea_adam7_interlaced_rgb8.png"),
             {}, scratch);
  const Image plain = decode(read_file(data / "photos" / "skimage_chelsea.png"), {}, scratch);
  EXPECT_EQ(first_difference(adam7, plain), "");
}

// Pillow 9.4, offline: im = Image.open('photos/skimage_chelsea.png');
// im.convert('L').getpixel((x, y)), im.convert('YCbCr').getpixel((x, y)).
struct PillowGray {
  int x, y;
  uint8_t gray;
  uint8_t ycbcr[3];
};
constexpr PillowGray kChelsea[] = {
    {0, 0, 125, {125, 116, 140}},     {450, 0, 31, {30, 118, 138}},
    {0, 299, 110, {110, 105, 148}},   {450, 299, 144, {144, 118, 140}},
    {100, 150, 109, {109, 103, 153}}, {333, 77, 138, {137, 107, 148}}};

TEST(PngDecoder, GrayAndYCbCrFromColour) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto chelsea = read_file(data / "photos" / "skimage_chelsea.png");
  DecodeParams p;
  p.color = OutputColor::kGray;
  const Image gray = decode(chelsea, p, scratch);
  p.color = OutputColor::kYCbCr;
  const Image ycc = decode(chelsea, p, scratch);
  for (const auto& px : kChelsea) {
    const int64_t i = px.y * gray.width + px.x;
    EXPECT_EQ(gray.data[i], px.gray) << px.x << "," << px.y;
    // Pillow's own RGB->YCbCr tables round differently from libjpeg's formula: within 1.
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(ycc.data[3 * i + k], px.ycbcr[k], 1);
    EXPECT_EQ(ycc.data[3 * i], gray.data[i]);  // Y is the grey formula
  }
  // gen_chelsea_gray16.png was written by Pillow as convert('L') * 257 (SOURCES.md): a
  // whole-image check of the grey formula.
  p.color = OutputColor::kAnyData;
  p.dtype = DType::kUInt16;
  const Image g16 =
      decode(read_file(data / "png_variants" / "photo" / "gen_chelsea_gray16.png"), p, scratch);
  ASSERT_EQ(g16.data16.size(), gray.data.size());
  for (size_t i = 0; i < gray.data.size(); ++i) ASSERT_EQ(g16.data16[i], gray.data[i] * 257) << i;
  // Grey + alpha: grey is Pillow's L again, alpha a top-to-bottom ramp 0..255.
  p.dtype = DType::kUInt8;
  const Image la = decode(
      read_file(data / "png_variants" / "photo" / "gen_chelsea_gray_alpha8.png"), p, scratch);
  ASSERT_EQ(la.channels, 2);
  for (int64_t y = 0; y < la.height; ++y) {
    for (int64_t x = 0; x < la.width; ++x) {
      const int64_t i = y * la.width + x;
      ASSERT_EQ(la.data[2 * i], gray.data[i]);
      ASSERT_EQ(la.data[2 * i + 1], la.data[2 * y * la.width + 1]);  // constant per row
    }
  }
  EXPECT_EQ(la.data[1], 0);
  EXPECT_EQ(la.data[2 * (la.height - 1) * la.width + 1], 255);
  // RGB from grey+alpha replicates grey and drops alpha.
  p.color = OutputColor::kRGB;
  const Image la_rgb = decode(
      read_file(data / "png_variants" / "photo" / "gen_chelsea_gray_alpha8.png"), p, scratch);
  for (size_t i = 0; i < gray.data.size(); ++i) {
    ASSERT_EQ(la_rgb.data[3 * i], gray.data[i]);
    ASSERT_EQ(la_rgb.data[3 * i + 2], gray.data[i]);
  }
}

TEST(PngDecoder, PaletteWithTransparency) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto bytes = read_file(data / "png_variants" / "photo" / "gen_chelsea_palette16_trns.png");
  const ImageInfo info = peek_image(bytes.data(), bytes.size());
  EXPECT_EQ(info.png.color_type, PngColorType::kPalette);
  EXPECT_TRUE(info.png.has_trns);
  EXPECT_EQ(info.bit_depth, 4);
  DecodeParams p;
  p.color = OutputColor::kAnyData;
  const Image rgba = decode(bytes, p, scratch);
  ASSERT_EQ(rgba.channels, 4);
  int transparent = 0;
  for (size_t i = 3; i < rgba.data.size(); i += 4) transparent += rgba.data[i] == 0;
  EXPECT_GT(transparent, 0);  // index 0 is transparent
  const Image rgb = decode(bytes, DecodeParams{}, scratch);
  for (size_t i = 0; i < rgb.data.size() / 3; ++i) {
    for (int k = 0; k < 3; ++k) ASSERT_EQ(rgb.data[3 * i + k], rgba.data[4 * i + k]);
  }
}

TEST(PngDecoder, CropMatchesFullDecode) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  for (const char* f :
       {"photo/gen_chelsea_adam7_interlaced_rgb8.png", "photo/ljt_monkey16_rgb16.png",
        "photo/dali_cat-111793_640-alpha_rgba8.png", "pngsuite/basn3p02.png"}) {
    SCOPED_TRACE(f);
    const auto bytes = read_file(data / "png_variants" / f);
    for (OutputColor c : {OutputColor::kRGB, OutputColor::kAnyData, OutputColor::kGray}) {
      DecodeParams p;
      p.color = c;
      const Image full = decode(bytes, p, scratch);
      for (CropWindow w : {CropWindow{0, 0, 1, 1}, CropWindow{5, 3, 9, 7},
                           CropWindow{full.height - 3, full.width - 2, 3, 2},
                           CropWindow{0, 1, full.height, full.width - 1}}) {
        p.crop = w;
        ASSERT_EQ(first_difference(decode(bytes, p, scratch), crop(full, w)), "")
            << w.x << "," << w.y << "," << w.w << "," << w.h;
      }
    }
  }
}

TEST(PngDecoder, PixelLimitAndUserLimits) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto bytes = read_file(data / "photos" / "skimage_coffee.png");  // 600x400
  DecodeParams p;
  p.max_pixels = 600 * 400 - 1;
  EXPECT_THROW(decode(bytes, p, scratch), DecodeError);
  EXPECT_EQ(scratch.buffer_bytes(), 0u);
}

}  // namespace
}  // namespace sluice::codecs
