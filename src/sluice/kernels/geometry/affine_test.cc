// The affine helpers against hand-computed matrices and their algebraic properties.

#include "sluice/kernels/geometry/affine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sluice/core/error.h"

namespace sluice::kernels {
namespace {

TEST(Affine, RowsRoundTripAndProductAppliesRightFirst) {
  const std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {0, -1, 10, 1, 0, 20};
  auto ma = AffineMatrix::from_rows(2, a), mb = AffineMatrix::from_rows(2, b);
  float out[6];
  ma.to_rows(out);
  EXPECT_EQ(std::vector<float>(out, out + 6), a);
  (mb * ma).to_rows(out);  // apply a, then b
  EXPECT_EQ(std::vector<float>(out, out + 6), (std::vector<float>{-4, -5, 4, 1, 2, 23}));
  EXPECT_THROW(AffineMatrix::from_rows(2, std::vector<float>(5)), InvalidArgument);
  EXPECT_THROW(AffineMatrix::identity(7), InvalidArgument);
}

TEST(Affine, InverseUndoesTheTransform) {
  auto m = AffineMatrix::from_rows(3, std::vector<float>{0.9f, 0.2f, -0.1f, 1.5f, -0.3f, 1.1f, 0.4f,
                                                         -2.0f, 0.05f, 0.3f, 0.8f, 7.0f});
  auto p = inverse(m) * m;
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(p.at(r, c), r == c ? 1.0f : 0.0f, 1e-5f);
  }
  EXPECT_THROW(inverse(AffineMatrix::from_rows(2, std::vector<float>{1, 2, 0, 2, 4, 0})),
               InvalidArgument);
}

TEST(Affine, RotationsAndCenters) {
  auto r2 = rotation_2d(deg2rad(90.0f));
  EXPECT_NEAR(r2.at(0, 1), -1.0f, 1e-7f);
  EXPECT_NEAR(r2.at(1, 0), 1.0f, 1e-7f);
  auto r3 = rotation_3d({0, 0, 2}, deg2rad(30.0f));  // about z: the 2D rotation of x and y
  auto r = rotation_2d(deg2rad(30.0f));
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(r3.at(i, j), r.at(i, j), 1e-6f);
  }
  EXPECT_FLOAT_EQ(r3.at(2, 2), 1.0f);
  // About a center, the center stays put.
  std::vector<float> c = {10, 20};
  set_center(r, c);
  EXPECT_NEAR(r.at(0, 0) * c[0] + r.at(0, 1) * c[1] + r.at(0, 2), c[0], 1e-4f);
  EXPECT_NEAR(r.at(1, 0) * c[0] + r.at(1, 1) * c[1] + r.at(1, 2), c[1], 1e-4f);
}

}  // namespace
}  // namespace sluice::kernels
