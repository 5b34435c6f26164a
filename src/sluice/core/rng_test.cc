#include "sluice/core/rng.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(Philox, MatchesPublishedKnownAnswer) {
  // Known-answer vector from the Random123 distribution (kat_vectors, philox4x32 10 rounds).
  uint32_t ctr[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
  uint32_t out[4];
  philox4x32({0xa4093822, 0x299f31d0}, ctr, out);
  EXPECT_EQ(out[0], 0xd16cfe09u);
  EXPECT_EQ(out[1], 0x94fdccebu);
  EXPECT_EQ(out[2], 0x5001e420u);
  EXPECT_EQ(out[3], 0x24126ea1u);
}

TEST(SampleRng, DependsOnlyOnSeedEpochAndSample) {
  SampleRng a(7, 1, 42), b(7, 1, 42), c(7, 2, 42), d(7, 1, 43), e(8, 1, 42);
  for (int i = 0; i < 10; ++i) {
    uint32_t x = a.next_u32();
    EXPECT_EQ(x, b.next_u32());
    EXPECT_NE(x, c.next_u32());
    EXPECT_NE(x, d.next_u32());
    EXPECT_NE(x, e.next_u32());
  }
}

TEST(SampleRng, UniformIsInRangeAndUnbiased) {
  SampleRng r(1, 0, 0);
  double sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    float u = r.uniform();
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    sum += u;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);
}

}  // namespace
}  // namespace sluice
