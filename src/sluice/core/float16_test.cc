#include "sluice/core/float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sluice {
namespace {

TEST(Float16, KnownValuesRoundTrip) {
  EXPECT_EQ(float_to_half_bits(0.0f), 0x0000);
  EXPECT_EQ(float_to_half_bits(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00);  // halfway to 65536 rounds to inf
  EXPECT_EQ(float_to_half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_half_bits(5.9604644775390625e-8f), 0x0001);   // smallest subnormal
  EXPECT_EQ(float_to_half_bits(2.98023223876953125e-8f), 0x0000);  // half of it: ties to even
  EXPECT_EQ(float_to_half_bits(6.103515625e-5f), 0x0400);          // smallest normal
  EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(std::nanf("")))));
  EXPECT_EQ(half_bits_to_float(0x3555), 0.333251953125f);
}

TEST(Float16, EveryHalfValueRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = half_bits_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    EXPECT_EQ(float_to_half_bits(f), h) << std::hex << h;
  }
}

TEST(Float16, RoundsToNearestEven) {
  // 1 + 2^-11 is exactly between 1 and the next half (1 + 2^-10): ties to even (1.0).
  EXPECT_EQ(float_to_half_bits(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(float_to_half_bits(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(float_to_bfloat16_bits(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bfloat16_bits(1.0f + 0x1p-8f), 0x3f80);  // tie -> even
  EXPECT_EQ(float_to_bfloat16_bits(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_EQ(bfloat16_bits_to_float(0x4049), 3.140625f);
}

}  // namespace
}  // namespace sluice
