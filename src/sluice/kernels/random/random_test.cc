#include "sluice/kernels/random/random.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace sluice::kernels {
namespace {

TEST(RandomValue, UniformNeverReachesTheUpperBound) {
  // [10, next float above 10) holds one float; the largest draws round up to 10 + ulp.
  const float lo = 10.0f, hi = std::nextafter(10.0f, 11.0f);
  for (uint32_t u : {0u, 0x80000000u, 0xFFFFFF00u, 0xFFFFFFFFu}) {
    EXPECT_EQ(random_value(RandomDist::kUniform, u, lo, hi, nullptr, 0), 10.0) << u;
  }
  // The same at the low end of a wide range's last ulp, and for negative ranges.
  const float big = 16777216.0f;  // 2^24: ulp 2 above, 1 below
  EXPECT_LT(random_value(RandomDist::kUniform, 0xFFFFFFFFu, big - 4.0f, big, nullptr, 0), big);
  EXPECT_LT(random_value(RandomDist::kUniform, 0xFFFFFFFFu, -1.0f, std::nextafter(-1.0f, 0.0f),
                         nullptr, 0),
            std::nextafter(-1.0f, 0.0f));
}

TEST(RandomValue, UniformCoversTheRange) {
  EXPECT_EQ(random_value(RandomDist::kUniform, 0u, -2.0f, 3.0f, nullptr, 0), -2.0);
  const double top = random_value(RandomDist::kUniform, 0xFFFFFFFFu, -2.0f, 3.0f, nullptr, 0);
  EXPECT_LT(top, 3.0);
  EXPECT_GT(top, 2.9999);
}

}  // namespace
}  // namespace sluice::kernels
