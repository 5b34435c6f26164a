// coord_transform_cpu against plain arithmetic: projections, translations, rounding half away
// from zero and saturation of integer outputs, refused type pairs.

#include "sluice/kernels/geometry/coord_transform.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "sluice/core/error.h"

namespace sluice::kernels {
namespace {

TEST(CoordTransformCpu, FloatPointsMatchTheMatrixProduct) {
  std::mt19937 gen(1);
  std::normal_distribution<float> d(0.0f, 10.0f);
  CoordTransformParams p;
  p.in_dim = 3;
  p.out_dim = 2;
  for (float& v : p.m) v = d(gen);
  for (float& v : p.t) v = d(gen);
  std::vector<float> in(3 * 50), out(2 * 50);
  for (float& v : in) v = d(gen);
  coord_transform_cpu(in.data(), DType::kFloat32, out.data(), DType::kFloat32, 50, p);
  for (int i = 0; i < 50; ++i) {
    for (int r = 0; r < 2; ++r) {
      double ref = p.t[r];
      for (int c = 0; c < 3; ++c) ref += double{p.m[r * 3 + c]} * in[i * 3 + c];
      EXPECT_NEAR(out[i * 2 + r], ref, 1e-3) << "point " << i << " row " << r;
    }
  }
}

TEST(CoordTransformCpu, IntegerOutputsRoundHalfAwayAndSaturate) {
  CoordTransformParams p;
  p.in_dim = p.out_dim = 1;
  p.m[0] = 0.5f;
  const std::vector<uint8_t> in = {1, 3, 5, 255};
  std::vector<uint8_t> out(4);
  coord_transform_cpu(in.data(), DType::kUInt8, out.data(), DType::kUInt8, 4, p);
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 2, 3, 128}));
  p.m[0] = -1.0f;
  p.t[0] = 300.0f;
  const std::vector<int16_t> in16 = {-32768, 0, 32767, 250};
  std::vector<int16_t> out16(4);
  p.m[0] = 2.0f;
  coord_transform_cpu(in16.data(), DType::kInt16, out16.data(), DType::kInt16, 4, p);
  EXPECT_EQ(out16, (std::vector<int16_t>{-32768, 300, 32767, 800}));
  EXPECT_EQ(round_sat<int32_t>(-2.5f), -3);
  EXPECT_EQ(round_sat<uint8_t>(NAN), 0);
  EXPECT_THROW(coord_transform_cpu(in.data(), DType::kUInt8, out.data(), DType::kInt16, 1, p),
               InvalidArgument);
  EXPECT_THROW(coord_transform_cpu(in.data(), DType::kInt8, out.data(), DType::kInt8, 1, p),
               InvalidArgument);
}

}  // namespace
}  // namespace sluice::kernels
