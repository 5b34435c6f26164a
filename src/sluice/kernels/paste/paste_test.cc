// paste_cpu against the per-element definition (paste_element below);
// multi_paste_cpu against a per-pixel "last region wins" reference with type conversions;
// convert_sat's rounding and saturation.

#include "sluice/kernels/paste/paste.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace sluice::kernels {
namespace {

// The element (y, x, c) of a paste canvas.
uint8_t paste_element(const PasteSample& s, const uint8_t* fill, int64_t y, int64_t x, int64_t c) {
  const int64_t iy = y - s.y, ix = x - s.x;
  if (iy < 0 || iy >= s.in_height || ix < 0 || ix >= s.in_width) return fill[c];
  return s.in[(iy * s.in_width + ix) * s.channels + c];
}

TEST(PasteCpu, MatchesPerElementRuleAndDaliLayout) {
  std::mt19937 gen(3);
  for (int trial = 0; trial < 50; ++trial) {
    PasteSample s{};
    s.in_height = 1 + gen() % 9;
    s.in_width = 1 + gen() % 9;
    s.channels = 1 + gen() % 4;
    s.out_height = s.in_height + gen() % 6;
    s.out_width = s.in_width + gen() % 6;
    s.y = gen() % (s.out_height - s.in_height + 1);
    s.x = gen() % (s.out_width - s.in_width + 1);
    std::vector<uint8_t> in(s.in_height * s.in_width * s.channels);
    for (auto& v : in) v = static_cast<uint8_t>(gen());
    std::vector<uint8_t> out(s.out_height * s.out_width * s.channels, 0xA5);
    const std::vector<uint8_t> fill = {7, 8, 9, 10};
    s.in = in.data();
    s.out = out.data();
    paste_cpu(s, fill.data());
    for (int64_t y = 0; y < s.out_height; ++y) {
      for (int64_t x = 0; x < s.out_width; ++x) {
        for (int64_t c = 0; c < s.channels; ++c) {
          const uint8_t got = out[(y * s.out_width + x) * s.channels + c];
          ASSERT_EQ(got, paste_element(s, fill.data(), y, x, c)) << "trial " << trial;
          const bool inside = y >= s.y && y < s.y + s.in_height && x >= s.x && x < s.x + s.in_width;
          if (inside) {
            ASSERT_EQ(got, in[((y - s.y) * s.in_width + x - s.x) * s.channels + c]);
          } else {
            ASSERT_EQ(got, fill[c]);
          }
        }
      }
    }
  }
}

TEST(PasteCpu, ConvertSatRoundsHalfAwayAndSaturates) {
  EXPECT_EQ(convert_sat<uint8_t>(2.5f), 3);
  EXPECT_EQ(convert_sat<uint8_t>(300.6f), 255);
  EXPECT_EQ(convert_sat<uint8_t>(-4.0f), 0);
  EXPECT_EQ(convert_sat<int32_t>(4.5f), 5);
  EXPECT_EQ(convert_sat<int32_t>(-2.5f), -3);
  EXPECT_EQ(convert_sat<int16_t>(int32_t{70000}), 32767);
  EXPECT_EQ(convert_sat<uint8_t>(int16_t{-5}), 0);
  EXPECT_EQ(convert_sat<int16_t>(std::nanf("")), 0);
  EXPECT_EQ(convert_sat<float>(uint8_t{200}), 200.0f);
}

TEST(MultiPasteCpu, LastRegionWinsWithConversion) {
  std::mt19937 gen(5);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t c = 1 + gen() % 3;
    const int64_t ih = 2 + gen() % 10, iw = 2 + gen() % 10;
    std::vector<float> src(ih * iw * c);
    for (auto& v : src) v = std::uniform_real_distribution<float>(-50, 300)(gen);
    MultiPasteSample s{
        nullptr, 1 + static_cast<int64_t>(gen() % 12), 1 + static_cast<int64_t>(gen() % 12), c, 0,
        0};
    std::vector<PasteRegion> regions;
    for (int k = 0, n = gen() % 5; k < n; ++k) {
      PasteRegion r{src.data(), iw, 0, 0, 0, 0, 0, 0};
      r.height = gen() % (std::min(ih, s.height) + 1);
      r.width = gen() % (std::min(iw, s.width) + 1);
      r.in_y = gen() % (ih - r.height + 1);
      r.in_x = gen() % (iw - r.width + 1);
      r.out_y = gen() % (s.height - r.height + 1);
      r.out_x = gen() % (s.width - r.width + 1);
      regions.push_back(r);
    }
    s.num_regions = static_cast<int>(regions.size());
    std::vector<uint8_t> out(s.height * s.width * c, 0xA5);
    s.out = out.data();
    multi_paste_cpu(s, regions.data(), DType::kUInt8, DType::kFloat32);
    for (int64_t y = 0; y < s.height; ++y) {
      for (int64_t x = 0; x < s.width; ++x) {
        for (int64_t ch = 0; ch < c; ++ch) {
          uint8_t want = 0;
          for (const PasteRegion& r : regions) {
            if (y >= r.out_y && y < r.out_y + r.height && x >= r.out_x && x < r.out_x + r.width) {
              const float v = src[((r.in_y + y - r.out_y) * iw + r.in_x + x - r.out_x) * c + ch];
              want = static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, std::round(v))));
            }
          }
          ASSERT_EQ(out[(y * s.width + x) * c + ch], want) << "trial " << trial;
        }
      }
    }
  }
}

}  // namespace
}  // namespace sluice::kernels
