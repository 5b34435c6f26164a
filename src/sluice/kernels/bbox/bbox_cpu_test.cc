#include <gtest/gtest.h>

#include <vector>

#include "sluice/kernels/bbox/bbox.h"

namespace sluice::kernels {
namespace {

TEST(BbFlipCpu, LtrbCornersMirror) {
  const std::vector<float> in = {0.1f, 0.2f, 0.3f, 0.5f, 0.0f, 0.0f, 1.0f, 1.0f};
  std::vector<float> out(in.size());
  bb_flip_cpu({in.data(), out.data(), 2, true, false}, /*ltrb=*/true);
  EXPECT_EQ(out, (std::vector<float>{1 - 0.3f, 0.2f, 1 - 0.1f, 0.5f, 0, 0, 1, 1}));
  bb_flip_cpu({in.data(), out.data(), 2, false, true}, true);
  EXPECT_EQ(out, (std::vector<float>{0.1f, 1 - 0.5f, 0.3f, 1 - 0.2f, 0, 0, 1, 1}));
  bb_flip_cpu({in.data(), out.data(), 2, false, false}, true);
  EXPECT_EQ(out, in);
}

TEST(BbFlipCpu, XywhGoesThroughTheCorners) {
  const std::vector<float> in = {0.1f, 0.2f, 0.3f, 0.5f};
  std::vector<float> out(4);
  bb_flip_cpu({in.data(), out.data(), 1, true, true}, /*ltrb=*/false);
  const float r = 0.1f + 0.3f, b = 0.2f + 0.5f;
  EXPECT_EQ(out, (std::vector<float>{1 - r, 1 - b, (1 - 0.1f) - (1 - r), (1 - 0.2f) - (1 - b)}));
  bb_flip_cpu({in.data(), out.data(), 1, false, false}, false);
  EXPECT_EQ(out, (std::vector<float>{0.1f, 0.2f, r - 0.1f, b - 0.2f}));
}

}  // namespace
}  // namespace sluice::kernels
