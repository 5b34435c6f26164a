// The colour kernels on the CPU against their formulas written out: DALI's rounding (half away
// from zero) and saturation, the YIQ matrices' neutral settings, the colour space conversions.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "sluice/kernels/color/color_cpu.h"
#include "sluice/kernels/color/color_matrix.h"

namespace sluice::kernels::color {
namespace {

template <typename Out, typename In>
std::vector<Out> run(ColorOp op, ColorSample s, const std::vector<In>& in, int64_t out_elems) {
  std::vector<Out> out(out_elems);
  s.in = in.data();
  s.out = out.data();
  color_cpu(s, op, dtype_of<In>, dtype_of<Out>);
  return out;
}

TEST(ColorCpu, MultiplyAddRoundsHalfAwayFromZeroAndSaturates) {
  ColorSample s;
  s.pixels = 6;
  set_brightness_contrast(s, 0.5f, 0.0f, 1.0f, 0.0f, 255.0f);
  const std::vector<uint8_t> in = {1, 3, 5, 0, 255, 254};
  EXPECT_EQ((run<uint8_t, uint8_t>(ColorOp::kMultiplyAdd, s, in, 6)),
            (std::vector<uint8_t>{1, 2, 3, 0, 128, 127}));
  const std::vector<int16_t> neg = {-1, -3, -5, 32767, -32768, 7};
  set_brightness_contrast(s, 0.5f, 0.0f, 1.0f, 0.0f, 32767.0f);
  EXPECT_EQ((run<int16_t, int16_t>(ColorOp::kMultiplyAdd, s, neg, 6)),
            (std::vector<int16_t>{-1, -2, -3, 16384, -16384, 4}));
  set_brightness_contrast(s, 3.0f, 0.1f, 1.0f, 0.0f, 255.0f);  // 0.1 * 255 + 3 * in
  EXPECT_EQ((run<uint8_t, uint8_t>(ColorOp::kMultiplyAdd, s, in, 6)),
            (std::vector<uint8_t>{29, 35, 41, 26, 255, 255}));
}

TEST(ColorCpu, ContrastCentersOnTheGivenValue) {
  ColorSample s;
  s.pixels = 3;
  set_brightness_contrast(s, 1.0f, 0.0f, 0.0f, 100.0f, 1.0f);
  const std::vector<float> in = {0.0f, 7.0f, 300.0f};
  EXPECT_EQ((run<float, float>(ColorOp::kMultiplyAdd, s, in, 3)),
            (std::vector<float>{100.0f, 100.0f, 100.0f}));
}

TEST(ColorCpu, NeutralHsvAndTwistKeepUint8Images) {
  std::mt19937 gen(3);
  std::vector<uint8_t> in(3 * 500);
  for (auto& v : in) v = static_cast<uint8_t>(gen());
  ColorSample s;
  s.pixels = 500;
  set_hsv(s, 0.0f, 1.0f, 1.0f);
  EXPECT_EQ((run<uint8_t, uint8_t>(ColorOp::kMatrix3, s, in, in.size())), in);
  set_color_twist(s, 0.0f, 1.0f, 1.0f, 1.0f, 128.0f);
  EXPECT_EQ((run<uint8_t, uint8_t>(ColorOp::kMatrix3, s, in, in.size())), in);
  set_hsv(s, 360.0f, 1.0f, 1.0f);
  EXPECT_EQ((run<uint8_t, uint8_t>(ColorOp::kMatrix3, s, in, in.size())), in);
}

TEST(ColorCpu, ZeroSaturationGivesGrey) {
  const std::vector<float> in = {0.2f, 0.5f, 0.9f};
  ColorSample s;
  s.pixels = 1;
  set_color_twist(s, 30.0f, 0.0f, 1.0f, 1.0f, 0.5f);
  const auto out = run<float, float>(ColorOp::kMatrix3, s, in, 3);
  const float y = 0.299f * 0.2f + 0.587f * 0.5f + 0.114f * 0.9f;
  for (float v : out) EXPECT_NEAR(v, y, 2e-3f);
}

TEST(ColorCpu, MatrixConvertsTypes) {
  ColorSample s;
  s.pixels = 1;
  set_color_twist(s, 0.0f, 1.0f, 2.0f, 1.0f, 128.0f);
  const std::vector<int16_t> in = {-100, 100, 20000};
  EXPECT_EQ((run<uint8_t, int16_t>(ColorOp::kMatrix3, s, in, 3)),
            (std::vector<uint8_t>{0, 200, 255}));
  const auto f = run<float16, int16_t>(ColorOp::kMatrix3, s, in, 3);
  EXPECT_NEAR(static_cast<float>(f[1]), 200.0f, 0.2f);
}

TEST(ColorCpu, Float16TiesRoundAwayFromZero) {
  ColorSample s;
  s.pixels = 4;
  set_brightness_contrast(s, 1.0f, 0.0f, 1.0f, 0.0f, 1.0f);
  const float tie = 1.0f + 1.0f / 2048;  // halfway between 1 and the next half, 1 + 1 / 1024
  const std::vector<float> in = {tie, -tie, 1.0f + 1.0f / 4096, 0.1f};
  const auto out = run<float16, float>(ColorOp::kMultiplyAdd, s, in, 4);
  EXPECT_EQ(static_cast<float>(out[0]), 1.0f + 1.0f / 1024);
  EXPECT_EQ(static_cast<float>(out[1]), -1.0f - 1.0f / 1024);
  EXPECT_EQ(static_cast<float>(out[2]), 1.0f);
  EXPECT_EQ(out[3].bits, float16(0.1f).bits);
}

TEST(ColorCpu, ConversionsFollowTheirFormulas) {
  const std::vector<uint8_t> rgb = {255, 0, 0, 10, 200, 30, 77, 77, 77};
  ColorSample s;
  s.pixels = 3;
  EXPECT_EQ((run<uint8_t, uint8_t>(ColorOp::kSwapRB, s, rgb, 9)),
            (std::vector<uint8_t>{0, 0, 255, 30, 200, 10, 77, 77, 77}));
  const auto gray = run<uint8_t, uint8_t>(ColorOp::kRgbToGray, s, rgb, 3);
  EXPECT_EQ(gray, (std::vector<uint8_t>{76, 124, 77}));  // about 0.299 R + 0.587 G + 0.114 B
  EXPECT_EQ((run<uint8_t, uint8_t>(ColorOp::kGrayToRgb, s, gray, 9)),
            (std::vector<uint8_t>{76, 76, 76, 124, 124, 124, 77, 77, 77}));
  const auto ycc = run<uint8_t, uint8_t>(ColorOp::kRgbToYCbCr, s, rgb, 9);
  EXPECT_EQ(ycc[0], 81);   // 0.299 * 219 + 16 = 81.48
  EXPECT_EQ(ycc[7], 128);  // grey: no chroma
  EXPECT_EQ(ycc[8], 128);
  const auto back = run<uint8_t, uint8_t>(ColorOp::kYCbCrToRgb, s, ycc, 9);
  for (size_t i = 0; i < rgb.size(); ++i) EXPECT_NEAR(back[i], rgb[i], 3) << i;
  const auto bgr = run<uint8_t, uint8_t>(ColorOp::kYCbCrToBgr, s, ycc, 9);
  EXPECT_EQ(bgr[0], back[2]);
  EXPECT_EQ(bgr[2], back[0]);
}

}  // namespace
}  // namespace sluice::kernels::color
