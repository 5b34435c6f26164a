#include "sluice/kernels/fill/broadcast_fill.h"

#include <gtest/gtest.h>

#include <vector>

namespace sluice::kernels {
namespace {

TEST(BroadcastFill, RepeatsExtentsOfOneAndMissingDimensions) {
  const std::vector<int32_t> v = {1, 4};  // shape 2 x 1
  std::vector<int32_t> out(2 * 2 * 3, -1);
  broadcast_fill_cpu(out.data(), {2, 2, 3}, v.data(), {2, 1}, sizeof(int32_t));
  EXPECT_EQ(out, (std::vector<int32_t>{1, 1, 1, 4, 4, 4, 1, 1, 1, 4, 4, 4}));
}

TEST(BroadcastFill, ValueDimensionsBeyondTheOutputTakeTheirFirstIndex) {
  const std::vector<int16_t> v = {1, 2, 3, 4, 5, 6};  // 2 x 3
  std::vector<int16_t> out(3);
  broadcast_fill_cpu(out.data(), {3}, v.data(), {2, 3}, sizeof(int16_t));
  EXPECT_EQ(out, (std::vector<int16_t>{1, 2, 3}));
  int16_t scalar = 0;
  broadcast_fill_cpu(&scalar, {}, v.data(), {2, 3}, sizeof(int16_t));
  EXPECT_EQ(scalar, 1);
}

TEST(BroadcastFill, ChecksShapesAsNumpy) {
  EXPECT_TRUE(can_broadcast({2, 3}, {3}));
  EXPECT_TRUE(can_broadcast({}, {2}));
  EXPECT_TRUE(can_broadcast({4, 1}, {1, 5}));
  EXPECT_FALSE(can_broadcast({2, 4}, {3}));
  EXPECT_FALSE(can_broadcast({2, 3}, {3, 3}));
}

}  // namespace
}  // namespace sluice::kernels
