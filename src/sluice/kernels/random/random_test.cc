#include "sluice/kernels/random/random.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace sluice::kernels {
namespace {

TEST(RandomValue, UniformNeverReachesTheUpperBound) {
  // [10, next float above 10) holds one float; the largest draws round up to 10 + ulp.
  const float lo = 10.0f, hi = std::nextafter(10.0f, 11.0f);
  for (uint32_t u : {0u, 0x80000000u, 0xFFFFFF00u, 0xFFFFFFFFu}) {
    EXPECT_EQ(random_value(RandomDist::kUniform, u, 0, lo, hi, nullptr, 0), 10.0) << u;
  }
  // The same at the low end of a wide range's last ulp, and for negative ranges.
  const float big = 16777216.0f;  // 2^24: ulp 2 above, 1 below
  EXPECT_LT(random_value(RandomDist::kUniform, 0xFFFFFFFFu, 0, big - 4.0f, big, nullptr, 0), big);
  EXPECT_LT(random_value(RandomDist::kUniform, 0xFFFFFFFFu, 0, -1.0f, std::nextafter(-1.0f, 0.0f),
                         nullptr, 0),
            std::nextafter(-1.0f, 0.0f));
}

TEST(RandomValue, UniformCoversTheRange) {
  EXPECT_EQ(random_value(RandomDist::kUniform, 0u, 0, -2.0f, 3.0f, nullptr, 0), -2.0);
  const double top = random_value(RandomDist::kUniform, 0xFFFFFFFFu, 0, -2.0f, 3.0f, nullptr, 0);
  EXPECT_LT(top, 3.0);
  EXPECT_GT(top, 2.9999);
}

TEST(RandomValue, NormalMomentsAndTails) {
  SampleRng rng(7, 0, 3);
  const int n = 200000;
  double sum = 0, sq = 0, lo = 0, hi = 0;
  for (int i = 0; i < n; ++i) {
    const uint32_t a = rng.next_u32(), b = rng.next_u32();
    const double v = random_value(RandomDist::kNormal, a, b, 2.0f, 3.0f, nullptr, 0);
    sum += v, sq += v * v, lo = std::min(lo, v), hi = std::max(hi, v);
  }
  const double mean = sum / n, var = sq / n - mean * mean;
  EXPECT_NEAR(mean, 2.0, 0.03);
  EXPECT_NEAR(var, 9.0, 0.15);
  EXPECT_LT(lo, 2.0 - 4 * 3.0);  // the tails are there
  EXPECT_GT(hi, 2.0 + 4 * 3.0);
  // The extreme draws stay finite.
  EXPECT_TRUE(std::isfinite(random_value(RandomDist::kNormal, 0u, 0u, 0, 1, nullptr, 0)));
  EXPECT_TRUE(std::isfinite(random_value(RandomDist::kNormal, ~0u, ~0u, 0, 1, nullptr, 0)));
}

}  // namespace
}  // namespace sluice::kernels
