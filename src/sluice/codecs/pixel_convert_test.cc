// convert_row: the documented formulas against values computed offline with Pillow 9.4, and
// the depth / layout rules.

#include "sluice/codecs/pixel_convert.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sluice/core/error.h"

namespace sluice::codecs {
namespace {

// Pillow 9.4, offline:
//   im = Image.frombytes('RGB', (8, 1), bytes(...)); im.convert('L').getdata(),
//   im.convert('YCbCr').getdata()
constexpr uint8_t kRgb[8][3] = {{0, 0, 0},   {255, 255, 255}, {255, 0, 0},     {0, 255, 0},
                                {0, 0, 255}, {12, 200, 77},   {128, 127, 129}, {250, 3, 99}};
constexpr uint8_t kPillowL[8] = {0, 255, 76, 150, 29, 130, 128, 88};
constexpr uint8_t kPillowYCbCr[8][3] = {{0, 128, 128},   {255, 128, 128}, {76, 84, 255},
                                        {149, 43, 21},   {29, 255, 107},  {129, 98, 44},
                                        {127, 128, 128}, {87, 134, 243}};

TEST(PixelConvert, GrayMatchesPillowExactly) {
  uint8_t out[8];
  convert_row(kRgb, PixelLayout::kRGB, 8, out, PixelLayout::kGray, 8, 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], kPillowL[i]) << i;
}

TEST(PixelConvert, YCbCrIsLibjpegFormulaWithinOneOfPillow) {
  uint8_t out[8][3];
  convert_row(kRgb, PixelLayout::kRGB, 8, out, PixelLayout::kYCbCr, 8, 8);
  for (int i = 0; i < 8; ++i) {
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(out[i][k], kPillowYCbCr[i][k], 1) << i << "," << k;
    EXPECT_EQ(out[i][0], kPillowL[i]);  // Y is the grey formula exactly
  }
  // JFIF reference points: red = (76, 85, 255) with libjpeg's rounding.
  EXPECT_EQ(out[2][0], 76);
  EXPECT_EQ(out[2][1], 85);
  EXPECT_EQ(out[2][2], 255);
  // Grey input: Y = v, Cb = Cr = 128, for every v; 16-bit: Cb = Cr = 32768.
  std::vector<uint8_t> g(256), y(3 * 256);
  for (int v = 0; v < 256; ++v) g[v] = static_cast<uint8_t>(v);
  convert_row(g.data(), PixelLayout::kGray, 8, y.data(), PixelLayout::kYCbCr, 8, 256);
  for (int v = 0; v < 256; ++v) {
    ASSERT_EQ(y[3 * v], v);
    ASSERT_EQ(y[3 * v + 1], 128);
    ASSERT_EQ(y[3 * v + 2], 128);
  }
  const uint16_t white16[3] = {65535, 65535, 65535};
  uint16_t y16[3];
  convert_row(white16, PixelLayout::kRGB, 16, y16, PixelLayout::kYCbCr, 16, 1);
  EXPECT_EQ(y16[0], 65535);
  EXPECT_EQ(y16[1], 32768);
  EXPECT_EQ(y16[2], 32768);
}

// Pillow 9.4, offline: Image.frombytes('CMYK', (8, 1), bytes(ink)).convert('RGB').getdata().
// Our source layout holds Adobe-inverted samples (stored = 255 - ink), as JPEG files do.
constexpr uint8_t kInk[8][4] = {{0, 0, 0, 0},   {255, 255, 255, 255}, {255, 0, 0, 0},
                                {0, 0, 0, 255}, {10, 200, 30, 40},    {128, 64, 32, 16},
                                {1, 2, 3, 254}, {200, 100, 50, 128}};
constexpr uint8_t kPillowCmykRgb[8][3] = {{255, 255, 255}, {0, 0, 0},      {0, 255, 255},
                                          {0, 0, 0},       {207, 46, 190}, {119, 179, 209},
                                          {1, 1, 1},       {27, 77, 102}};

TEST(PixelConvert, CmykMatchesPillowExactly) {
  uint8_t stored[8][4], rgb[8][3];
  for (int i = 0; i < 8; ++i)
    for (int k = 0; k < 4; ++k) stored[i][k] = static_cast<uint8_t>(255 - kInk[i][k]);
  convert_row(stored, PixelLayout::kCmykInverted, 8, rgb, PixelLayout::kRGB, 8, 8);
  for (int i = 0; i < 8; ++i)
    for (int k = 0; k < 3; ++k) EXPECT_EQ(rgb[i][k], kPillowCmykRgb[i][k]) << i << "," << k;
}

TEST(PixelConvert, DepthAndLayoutRules) {
  // 16 -> 8 keeps the high byte; 8 -> 16 multiplies by 257.
  const uint16_t s16[4] = {0x0000, 0x01FF, 0x8080, 0xFFFF};
  uint8_t d8[4];
  convert_row(s16, PixelLayout::kGray, 16, d8, PixelLayout::kGray, 8, 4);
  EXPECT_EQ(d8[0], 0x00);
  EXPECT_EQ(d8[1], 0x01);
  EXPECT_EQ(d8[2], 0x80);
  EXPECT_EQ(d8[3], 0xFF);
  uint16_t d16[4];
  convert_row(d8, PixelLayout::kGray, 8, d16, PixelLayout::kGray, 16, 4);
  EXPECT_EQ(d16[3], 65535);
  EXPECT_EQ(d16[2], 0x80 * 257);
  // Colour conversion at the lower depth: 16-bit RGB -> 8-bit grey = L(high bytes).
  const uint16_t rgb16[3] = {0xFFFF, 0x0000, 0x8000};
  uint8_t g;
  convert_row(rgb16, PixelLayout::kRGB, 16, &g, PixelLayout::kGray, 8, 1);
  EXPECT_EQ(g, (255 * 19595 + 0 * 38470 + 128 * 7471 + 0x8000) >> 16);
  // 8-bit RGB -> 16-bit grey = 257 * L(8-bit).
  const uint8_t rgb8[3] = {12, 200, 77};
  uint16_t g16;
  convert_row(rgb8, PixelLayout::kRGB, 8, &g16, PixelLayout::kGray, 16, 1);
  EXPECT_EQ(g16, 130 * 257);
  // Alpha dropped, grey replicated, BGR swapped, alpha made opaque when missing.
  const uint8_t la[2] = {77, 9};
  uint8_t rgb[3], rgba[4], bgr[3];
  convert_row(la, PixelLayout::kGrayAlpha, 8, rgb, PixelLayout::kRGB, 8, 1);
  EXPECT_EQ(rgb[0], 77);
  EXPECT_EQ(rgb[2], 77);
  const uint8_t c3[3] = {1, 2, 3};
  convert_row(c3, PixelLayout::kRGB, 8, rgba, PixelLayout::kRGBA, 8, 1);
  EXPECT_EQ(rgba[3], 255);
  convert_row(c3, PixelLayout::kRGB, 8, bgr, PixelLayout::kBGR, 8, 1);
  EXPECT_EQ(bgr[0], 3);
  EXPECT_EQ(bgr[2], 1);
  // Programming errors are reported, not silently ignored.
  EXPECT_THROW(convert_row(c3, PixelLayout::kYCbCr, 8, rgb, PixelLayout::kRGB, 8, 1), Error);
  EXPECT_THROW(convert_row(c3, PixelLayout::kRGB, 12, rgb, PixelLayout::kRGB, 8, 1), Error);
}

// Neutral 16-bit colours (R = G = B) give exactly that grey: the weights sum to 65536.
TEST(PixelConvert, SixteenBitGrayOfNeutralColoursIsExact) {
  std::mt19937 rng(11);
  for (int i = 0; i < 1000; ++i) {
    const uint16_t v = static_cast<uint16_t>(rng());
    const uint16_t rgb[3] = {v, v, v};
    uint16_t g;
    convert_row(rgb, PixelLayout::kRGB, 16, &g, PixelLayout::kGray, 16, 1);
    ASSERT_EQ(g, v);
  }
}

}  // namespace
}  // namespace sluice::codecs
