// displace_cpu: water with no amplitude is the identity (nearest) and a half-pixel blend
// (linear, as DALI samples); sphere keeps the centre and fills what maps outside; jitter moves
// each pixel by at most nDegree / 2 and depends only on the key.

#include "sluice/kernels/displace/displace.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace sluice::kernels {
namespace {

DisplaceSample sample(void* out, const void* in, int64_t h, int64_t w, int64_t c) {
  DisplaceSample s{};
  s.out = out;
  s.in = in;
  s.height = h;
  s.width = w;
  s.channels = c;
  s.apply = true;
  s.fill = 7;
  return s;
}

TEST(DisplaceCpu, FlatWaterIsIdentityOrHalfPixelBlend) {
  std::mt19937 gen(1);
  const int64_t h = 9, w = 11, c = 3;
  std::vector<uint8_t> in(h * w * c), out(in.size());
  for (auto& v : in) v = static_cast<uint8_t>(gen());
  DisplaceSample s = sample(out.data(), in.data(), h, w, c);
  displace_cpu(s, {DisplaceKind::kWater, false, false});
  EXPECT_EQ(out, in);
  displace_cpu(s, {DisplaceKind::kWater, true, false});
  auto at = [&](int64_t y, int64_t x, int64_t k) -> float {
    return y < 0 || x < 0 ? 7.0f : in[(y * w + x) * c + k];
  };
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      for (int64_t k = 0; k < c; ++k) {
        const float v = (at(y - 1, x - 1, k) + at(y - 1, x, k) + at(y, x - 1, k) + at(y, x, k)) / 4;
        ASSERT_NEAR(out[(y * w + x) * c + k], v, 0.5f + 1e-4f) << y << "," << x;
      }
    }
  }
}

TEST(DisplaceCpu, SphereKeepsTheCentreAndFillsOutside) {
  const int64_t h = 20, w = 20;
  std::vector<float> in(h * w), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i + 100);
  DisplaceSample s = sample(out.data(), in.data(), h, w, 1);
  displace_cpu(s, {DisplaceKind::kSphere, false, true});
  EXPECT_EQ(out[10 * w + 10], in[10 * w + 10]);
  EXPECT_EQ(out[0], 7.0f);  // a corner maps beyond the image
  // Pixel (y, x) samples the centre plus its offset scaled by its distance over 10.
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      const double ty = y + 0.5 - 10, tx = x + 0.5 - 10, r = std::sqrt(tx * tx + ty * ty) / 10;
      const double sx = 10 + r * tx, sy = 10 + r * ty;
      if (std::abs(sx - std::round(sx)) < 1e-4 || std::abs(sy - std::round(sy)) < 1e-4) continue;
      const int64_t ix = static_cast<int64_t>(std::floor(sx));
      const int64_t iy = static_cast<int64_t>(std::floor(sy));
      const bool inside = ix >= 0 && ix < w && iy >= 0 && iy < h;
      ASSERT_EQ(out[y * w + x], inside ? in[iy * w + ix] : 7.0f) << y << "," << x;
    }
  }
}

TEST(DisplaceCpu, JitterMovesByAtMostHalfTheDegree) {
  const int64_t h = 30, w = 40;
  std::vector<float> in(h * w), out(in.size()), again(in.size());
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) in[y * w + x] = static_cast<float>(y * 1000 + x);
  }
  DisplaceSample s = sample(out.data(), in.data(), h, w, 1);
  s.n_degree = 5;
  s.key = {12345, 678};
  displace_cpu(s, {DisplaceKind::kJitter, false, true});
  int moved = 0;
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      const float v = out[y * w + x];
      if (v == 7.0f) continue;  // taken from the far edge (x == w or y == h)
      const int64_t sy = static_cast<int64_t>(v) / 1000, sx = static_cast<int64_t>(v) % 1000;
      ASSERT_LE(std::abs(sy - y), 2);
      ASSERT_LE(std::abs(sx - x), 2);
      moved += sx != x || sy != y;
    }
  }
  EXPECT_GT(moved, h * w / 2);
  s.out = again.data();
  displace_cpu(s, {DisplaceKind::kJitter, false, true});
  EXPECT_EQ(out, again);
}

TEST(DisplaceCpu, MaskedSampleIsCopied) {
  std::vector<uint8_t> in(5 * 6 * 3, 9), out(in.size());
  DisplaceSample s = sample(out.data(), in.data(), 5, 6, 3);
  s.apply = false;
  s.ampl_x = 100;
  displace_cpu(s, {DisplaceKind::kWater, true, false});
  EXPECT_EQ(out, in);
}

}  // namespace
}  // namespace sluice::kernels
