// BMP and PNM: files written by Pillow (embedded) and by a small writer here that follows the
// format specifications, decoded and compared with their source pixels; refusals.

#include <gtest/gtest.h>

#include <random>

#include "sluice/codecs/codec_test_util.h"

namespace sluice::codecs {
namespace {

using testing::decode_as;
using testing::first_difference;
using testing::Image;

std::vector<uint8_t> str_bytes(const std::string& s) {
  return {s.begin(), s.end()};
}

// Pillow 9.4: Image.fromarray([[[255,0,0],[0,255,0],[0,0,255]],[[10,20,30],[40,50,60],
// [70,80,90]]]).save(f, 'BMP')  (24-bit, bottom-up, rows padded to 4 bytes).
const std::vector<uint8_t> kPillowBmp24 = {
    0x42, 0x4d, 0x4e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x36, 0x00, 0x00, 0x00, 0x28, 0x00,
    0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x18, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0xc4, 0x0e, 0x00, 0x00, 0xc4, 0x0e, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1e, 0x14, 0x0a, 0x3c, 0x32, 0x28, 0x5a, 0x50, 0x46, 0x00,
    0x00, 0x00, 0x00, 0x00, 0xff, 0x00, 0xff, 0x00, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00};
const uint8_t kPillowBmp24Pixels[] = {255, 0,  0,  0,  255, 0,  0,  0,  255,
                                      10,  20, 30, 40, 50,  60, 70, 80, 90};

// Pillow 9.4: mode 'P' [[0,1,2],[3,2,1]] with palette (0,0,0) (255,255,255) (200,100,50)
// (1,2,3) saved as BMP (8-bit, 4-entry palette); convert('RGB') gives the pixels below.
const std::vector<uint8_t> kPillowBmp8 = {
    0x42, 0x4d, 0x4e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46, 0x00, 0x00, 0x00, 0x28, 0x00,
    0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0xc4, 0x0e, 0x00, 0x00, 0xc4, 0x0e, 0x00, 0x00, 0x04, 0x00,
    0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0x00, 0x32, 0x64,
    0xc8, 0x00, 0x03, 0x02, 0x01, 0x00, 0x03, 0x02, 0x01, 0x00, 0x00, 0x01, 0x02, 0x00};
const uint8_t kPillowBmp8Pixels[] = {0, 0, 0, 255, 255, 255, 200, 100, 50,
                                     1, 2, 3, 200, 100, 50,  255, 255, 255};

TEST(BmpDecoder, PillowFiles) {
  Image a = decode_as(kPillowBmp24);
  EXPECT_EQ(a.width, 3);
  EXPECT_EQ(a.height, 2);
  EXPECT_EQ(a.data,
            std::vector<uint8_t>(std::begin(kPillowBmp24Pixels), std::end(kPillowBmp24Pixels)));
  Image b = decode_as(kPillowBmp8);
  EXPECT_EQ(b.data,
            std::vector<uint8_t>(std::begin(kPillowBmp8Pixels), std::end(kPillowBmp8Pixels)));
  const ImageInfo info = peek_image(kPillowBmp8.data(), kPillowBmp8.size());
  EXPECT_EQ(info.bmp.palette_size, 4);
  EXPECT_EQ(info.channels, 1);
  EXPECT_EQ(info.bit_depth, 8);
}

// Writes `px` (RGBA, w x h) as a BMP: bpp 1/4/8 use `palette` (RGB) with indices `idx`.
struct BmpSpec {
  int bpp = 24;
  bool top_down = false;
  int header = 40;  // 12 (OS/2 core), 40, 124 (V5)
  bool bitfields_alpha = false;
};
std::vector<uint8_t> write_bmp(const BmpSpec& s, int w, int h, const std::vector<uint8_t>& rgba,
                               const std::vector<uint8_t>& idx,
                               const std::vector<uint8_t>& palette) {
  std::vector<uint8_t> out;
  auto u16 = [&](uint32_t v) { out.push_back(v & 255), out.push_back(v >> 8 & 255); };
  auto u32 = [&](uint32_t v) { u16(v & 0xFFFF), u16(v >> 16); };
  const int ncolors = s.bpp <= 8 ? static_cast<int>(palette.size() / 3) : 0;
  const int entry = s.header == 12 ? 3 : 4;
  const size_t stride = (static_cast<size_t>(w) * s.bpp + 31) / 32 * 4;
  const uint32_t offset = 14 + s.header + ncolors * entry;
  out.push_back('B'), out.push_back('M');
  u32(static_cast<uint32_t>(offset + stride * h)), u32(0), u32(offset);
  u32(s.header);
  if (s.header == 12) {
    u16(w), u16(h), u16(1), u16(s.bpp);
  } else {
    u32(w), u32(s.top_down ? static_cast<uint32_t>(-h) : h), u16(1), u16(s.bpp);
    u32(s.bitfields_alpha ? 3 : 0), u32(static_cast<uint32_t>(stride * h)), u32(2835), u32(2835);
    u32(ncolors), u32(0);
    if (s.header == 124) {
      u32(0x00FF0000), u32(0x0000FF00), u32(0x000000FF), u32(s.bitfields_alpha ? 0xFF000000 : 0);
      while (out.size() < 14u + 124u) out.push_back(0);
    }
  }
  for (int i = 0; i < ncolors; ++i) {
    out.push_back(palette[3 * i + 2]), out.push_back(palette[3 * i + 1]),
        out.push_back(palette[3 * i]);
    if (entry == 4) out.push_back(0);
  }
  for (int r = 0; r < h; ++r) {
    const int y = s.top_down ? r : h - 1 - r;
    std::vector<uint8_t> row(stride, 0);
    for (int x = 0; x < w; ++x) {
      const uint8_t* p = &rgba[4 * (y * w + x)];
      if (s.bpp <= 8) {
        const int per = 8 / s.bpp;
        row[x / per] |= idx[y * w + x] << (8 - s.bpp * (1 + x % per));
      } else {
        uint8_t* q = &row[x * s.bpp / 8];
        q[0] = p[2], q[1] = p[1], q[2] = p[0];
        if (s.bpp == 32) q[3] = s.bitfields_alpha ? p[3] : 0x5A;  // padding byte otherwise
      }
    }
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

TEST(BmpDecoder, AllSupportedLayoutsRoundTrip) {
  std::mt19937 rng(3);
  const int w = 13, h = 5;  // odd width: row padding
  std::vector<uint8_t> palette(256 * 3);
  for (auto& v : palette) v = static_cast<uint8_t>(rng());
  for (BmpSpec s : {BmpSpec{1}, BmpSpec{4}, BmpSpec{8}, BmpSpec{24}, BmpSpec{32}, BmpSpec{24, true},
                    BmpSpec{8, true}, BmpSpec{24, false, 12}, BmpSpec{8, false, 12},
                    BmpSpec{32, false, 124, true}, BmpSpec{32, true, 124, false}}) {
    SCOPED_TRACE(s.bpp * 1000 + s.header * 10 + s.top_down);
    std::vector<uint8_t> rgba(4 * w * h), idx(w * h);
    const int ncolors = s.bpp <= 8 ? (1 << s.bpp) : 0;
    for (int i = 0; i < w * h; ++i) {
      if (ncolors) {
        idx[i] = static_cast<uint8_t>(rng() % ncolors);
        std::copy_n(&palette[3 * idx[i]], 3, &rgba[4 * i]);
        rgba[4 * i + 3] = 255;
      } else {
        for (int k = 0; k < 4; ++k) rgba[4 * i + k] = static_cast<uint8_t>(rng());
      }
    }
    const auto file = write_bmp(
        s, w, h, rgba, idx, std::vector<uint8_t>(palette.begin(), palette.begin() + 3 * ncolors));
    const Image any = decode_as(file, OutputColor::kAnyData);
    const int c = s.bitfields_alpha ? 4 : 3;
    ASSERT_EQ(any.channels, c);
    for (int i = 0; i < w * h; ++i) {
      for (int k = 0; k < c; ++k) ASSERT_EQ(any.data[c * i + k], rgba[4 * i + k]) << i << "," << k;
    }
    const Image bgr = decode_as(file, OutputColor::kBGR);
    for (int i = 0; i < w * h; ++i) ASSERT_EQ(bgr.data[3 * i], rgba[4 * i + 2]);
    // Crop + 16-bit output.
    const Image cropped =
        decode_as(file, OutputColor::kRGB, DType::kUInt16, CropWindow{1, 3, 3, 7});
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 7; ++x)
        for (int k = 0; k < 3; ++k)
          ASSERT_EQ(cropped.data16[(y * 7 + x) * 3 + k], rgba[4 * ((y + 1) * w + x + 3) + k] * 257);
  }
}

TEST(BmpDecoder, RefusesUnsupportedAndCorrupt) {
  std::vector<uint8_t> rgba(4 * 4 * 4, 7), idx(16, 0), pal = {1, 2, 3, 4, 5, 6};
  auto expect_error = [](std::vector<uint8_t> b, const char* needle) {
    try {
      decode_as(b);
      ADD_FAILURE() << "decoded; expected " << needle;
    } catch (const DecodeError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  auto good = write_bmp(BmpSpec{24}, 4, 4, rgba, idx, {});
  auto b = good;
  b[30] = 1;  // BI_RLE8
  expect_error(b, "BI_RLE8");
  b = good;
  b[28] = 16;  // 16 bpp
  expect_error(b, "16 bits per pixel");
  b = good;
  b.resize(b.size() - 1);
  expect_error(b, "truncated");
  b = good;
  b[18] = 0;  // width 0
  expect_error(b, "invalid dimensions");
  idx[5] = 1;
  EXPECT_NO_THROW(decode_as(write_bmp(BmpSpec{1}, 4, 4, rgba, idx, pal)));
  auto p4 = write_bmp(BmpSpec{4}, 4, 4, rgba, idx, pal);  // 4-bit, only 2 colours
  p4[14 + 40 + 8] = 0x90;                                 // first pixel index 9
  expect_error(p4, "palette index 9");
  expect_error(str_bytes("BMxx"), "truncated");
}

TEST(PnmDecoder, AllKindsMatchTheirSamples) {
  // P1 / P4: 1 = black. Comments and missing separators in P1 are allowed.
  const Image p1 = decode_as(str_bytes("P1\n# comment\n3 2\n1 0 1\n010\n"), OutputColor::kAnyData);
  EXPECT_EQ(p1.data, (std::vector<uint8_t>{0, 255, 0, 255, 0, 255}));
  const std::vector<uint8_t> p4 = {'P', '4', ' ', '1', '0', ' ', '2', '\n', 0xA5, 0x80, 0x0F, 0xC0};
  const Image b4 = decode_as(p4, OutputColor::kAnyData);
  EXPECT_EQ(b4.data, (std::vector<uint8_t>{0,   255, 0,   255, 255, 0, 255, 0, 0, 255,
                                           255, 255, 255, 255, 0,   0, 0,   0, 0, 0}));
  // P2 maxval 15: 7 -> 119, 8 -> 136 (exact); Pillow 9.4 gives the same values.
  const Image p2 = decode_as(str_bytes("P2 2 2 15 0 7 8 15\n"), OutputColor::kAnyData);
  EXPECT_EQ(p2.data, (std::vector<uint8_t>{0, 119, 136, 255}));
  // P3 maxval 1000, values computed by Pillow 9.4 (Image.open(...).getdata()).
  const Image p3 = decode_as(str_bytes("P3\n# c\n3 1\n1000\n0 1 2  499 500 501  998 999 1000\n"));
  EXPECT_EQ(p3.data, (std::vector<uint8_t>{0, 0, 1, 127, 128, 128, 254, 255, 255}));
  // P5 16-bit big-endian, maxval 1023 -> uint16 scaled to 65535 (Pillow: [64, 65535]).
  const std::vector<uint8_t> p5 = {'P', '5', ' ', '2',  ' ', '1', ' ', '1',
                                   '0', '2', '3', '\n', 0,   1,   3,   255};
  const Image g16 = decode_as(p5, OutputColor::kAnyData, DType::kUInt16);
  EXPECT_EQ(g16.data16, (std::vector<uint16_t>{64, 65535}));
  const ImageInfo info = peek_image(p5.data(), p5.size());
  EXPECT_EQ(info.bit_depth, 16);
  EXPECT_EQ(info.pnm.maxval, 1023);
  // P6 8-bit and 16-bit maxval 65535 (identity in uint16, rounded scaling in uint8).
  std::vector<uint8_t> p6 = str_bytes("P6 2 1 255\n");
  for (uint8_t v : {1, 2, 3, 250, 251, 252}) p6.push_back(v);
  EXPECT_EQ(decode_as(p6).data, (std::vector<uint8_t>{1, 2, 3, 250, 251, 252}));
  EXPECT_EQ(decode_as(p6, OutputColor::kBGR).data, (std::vector<uint8_t>{3, 2, 1, 252, 251, 250}));
  std::vector<uint8_t> p6w = str_bytes("P6 1 1 65535\n");
  for (uint8_t v : {0x12, 0x34, 0x00, 0x80, 0xFF, 0xFF}) p6w.push_back(v);
  EXPECT_EQ(decode_as(p6w, OutputColor::kRGB, DType::kUInt16).data16,
            (std::vector<uint16_t>{0x1234, 0x0080, 0xFFFF}));
  // (v * 255 + 32767) / 65535: 0x1234 -> 18, 0x80 -> 0 (128 * 255 < 32768), 0xFFFF -> 255.
  EXPECT_EQ(decode_as(p6w).data, (std::vector<uint8_t>{18, 0, 255}));
}

TEST(PnmDecoder, RefusesCorruptData) {
  auto expect_error = [](const std::string& s, const char* needle) {
    try {
      decode_as(str_bytes(s));
      ADD_FAILURE() << "decoded: " << s;
    } catch (const DecodeError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("P2 2 1 15 3 16\n", "exceeds maxval");
  expect_error("P2 2 1 15 3\n", "truncated");
  expect_error("P5 2 2 255\nabc", "truncated");
  expect_error("P5 2 2 0\nabcd", "maxval 0");
  expect_error("P5 2 2 70000\nabcd", "maxval 70000");
  expect_error("P5 0 2 255\nabcd", "invalid dimensions");
  expect_error("P3 1 1 255 1 x 3\n", "expected a sample");
  expect_error("P1 2 1 0 2\n", "invalid pixel character");
  expect_error("P6 99999999999 1 255\n", "too large");
  expect_error("P6 1 1 255x", "instead of whitespace");
}

}  // namespace
}  // namespace sluice::codecs
