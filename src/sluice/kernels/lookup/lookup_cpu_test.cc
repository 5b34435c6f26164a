#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "sluice/kernels/lookup/lookup.h"

namespace sluice::kernels {
namespace {

TEST(LookupCpu, OneHotPlacesTheClassAxisBetweenOuterAndInner) {
  // Input 2 x 3 (outer 2, inner 3) of classes; 4 classes on axis 1: output 2 x 4 x 3.
  const std::vector<int32_t> in = {0, 3, 1, 2, -1, 7};
  std::vector<float> out(2 * 4 * 3, -1.f);
  const float on = 5.f, off = 0.5f;
  uint32_t on_bits, off_bits;
  std::memcpy(&on_bits, &on, 4);
  std::memcpy(&off_bits, &off, 4);
  one_hot_cpu({in.data(), out.data(), 2, 3}, {DType::kInt32, 4, 4, on_bits, off_bits});
  for (int a = 0; a < 2; ++a) {
    for (int k = 0; k < 4; ++k) {
      for (int b = 0; b < 3; ++b) {
        EXPECT_EQ(out[(a * 4 + k) * 3 + b], in[a * 3 + b] == k ? on : off) << a << k << b;
      }
    }
  }
}

TEST(LookupCpu, ClassesOfFloatsAreTruncated) {
  const std::vector<float> in = {0.9f, 1.5f, -0.5f, 3e10f};
  std::vector<uint8_t> out(4 * 2);
  one_hot_cpu({in.data(), out.data(), 4, 1}, {DType::kFloat32, 2, 1, 1, 0});
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 0, 0, 1, 1, 0, 0, 0}));  // -0.5 truncates to class 0
}

TEST(LookupCpu, TableEntriesForKeysInRangeDefaultElsewhere) {
  const std::vector<uint16_t> table = {10, 11, 12};
  const std::vector<int64_t> in = {0, 2, 3, -1, 1, 70000};
  std::vector<uint16_t> out(in.size());
  lookup_cpu({in.data(), out.data(), 6}, {DType::kInt64, 2, table.data(), 3, 99});
  EXPECT_EQ(out, (std::vector<uint16_t>{10, 12, 99, 99, 11, 99}));
  const std::vector<uint64_t> big = {1, ~uint64_t{0}};
  lookup_cpu({big.data(), out.data(), 2}, {DType::kUInt64, 2, table.data(), 3, 99});
  EXPECT_EQ(out[0], 11);
  EXPECT_EQ(out[1], 99);
}

}  // namespace
}  // namespace sluice::kernels
