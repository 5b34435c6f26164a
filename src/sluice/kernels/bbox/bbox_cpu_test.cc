#include <gtest/gtest.h>

#include <vector>

#include "sluice/kernels/bbox/bbox.h"
#include "sluice/kernels/bbox/box_encoder.h"

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

TEST(BoxEncoderCpu, MatchesByIouAndKeepsEachBoxsBestAnchor) {
  // Anchor 0 overlaps box 0 well; anchor 1 overlaps box 1 weakly but is its best; anchor 2 none.
  const std::vector<float> anchors = {0, 0, 0.5f, 0.5f, 0.5f, 0.5f, 1, 1, 0, 0.6f, 0.1f, 0.7f};
  const std::vector<float> boxes = {0.05f, 0.05f, 0.5f, 0.5f, 0.7f, 0.7f, 0.8f, 0.8f};
  const std::vector<int32_t> labels = {7, 9};
  BoxEncoderParams p{anchors.data(), 3, 0.5f, false, {0, 0, 0, 0}, {1, 1, 1, 1}, 1.0f};
  std::vector<float> out(12);
  std::vector<int32_t> out_labels(3);
  std::vector<int> scratch(2);
  box_encoder_cpu(p, {boxes.data(), labels.data(), 2, out.data(), out_labels.data()},
                  scratch.data());
  EXPECT_EQ(out_labels, (std::vector<int32_t>{7, 9, 0}));
  EXPECT_FLOAT_EQ(out[0], 0.275f);  // box 0's centre and size
  EXPECT_FLOAT_EQ(out[2], 0.45f);
  EXPECT_FLOAT_EQ(out[4], 0.75f);  // box 1's
  EXPECT_FLOAT_EQ(out[6], 0.1f);
  EXPECT_FLOAT_EQ(out[8], 0.05f);  // anchor 2 unchanged, as centre and size
  EXPECT_EQ(out[11], 0.7f - 0.6f);
  EXPECT_FLOAT_EQ(box_iou(boxes.data(), anchors.data()), 0.45f * 0.45f / 0.25f);
}

}  // namespace
}  // namespace sluice::kernels
