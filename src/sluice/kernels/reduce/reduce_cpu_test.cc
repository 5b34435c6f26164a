#include "sluice/kernels/reduce/reduce_cpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace sluice::kernels {
namespace {

// The reference: every input element visited by its multi-index, summed in long double into
// the output element its kept coordinates name.
std::vector<long double> reference(ReduceOp op, const std::vector<float>& in, const Shape& shape,
                                   uint64_t mask, const std::vector<float>& mean, int ddof) {
  Shape out_shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!((mask >> d) & 1)) out_shape.push_back(shape[d]);
  }
  const int64_t nout = volume(out_shape), n = volume(shape), nred = nout ? n / nout : 0;
  const bool is_min = op == ReduceOp::kMin, is_max = op == ReduceOp::kMax;
  std::vector<long double> acc(nout, is_min ? INFINITY : is_max ? -INFINITY : 0);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t o = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (!((mask >> d) & 1)) o = o * shape[d] + idx[d];
    }
    long double x = in[i];
    if (op == ReduceOp::kMeanSquare || op == ReduceOp::kRms) x = x * x;
    if (op == ReduceOp::kVariance || op == ReduceOp::kStdDev) x = (x - mean[o]) * (x - mean[o]);
    acc[o] = is_min ? std::min(acc[o], x) : is_max ? std::max(acc[o], x) : acc[o] + x;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0 && ++idx[d] == shape[d]; --d)
      idx[d] = 0;
  }
  for (auto& a : acc) {
    if (op == ReduceOp::kMean || op == ReduceOp::kMeanSquare) a /= nred;
    if (op == ReduceOp::kRms) a = std::sqrt(a / nred);
    if (op == ReduceOp::kVariance) a /= nred - ddof;
    if (op == ReduceOp::kStdDev) a = std::sqrt(a / (nred - ddof));
  }
  return acc;
}

TEST(ReduceCpu, FloatReductionsMatchIndexArithmetic) {
  std::mt19937 gen(5);
  const std::vector<Shape> shapes = {{7},          {3, 4},          {5, 1, 6},
                                     {4, 3, 5, 2}, {2, 3, 4, 5, 3}, {40, 37, 3}};
  const ReduceOp ops[] = {ReduceOp::kSum,      ReduceOp::kMin,        ReduceOp::kMax,
                          ReduceOp::kMean,     ReduceOp::kMeanSquare, ReduceOp::kRms,
                          ReduceOp::kVariance, ReduceOp::kStdDev};
  for (const Shape& shape : shapes) {
    std::vector<float> in(volume(shape));
    for (auto& v : in) v = std::uniform_real_distribution<float>(-50, 50)(gen);
    for (uint64_t mask = 0; mask < (uint64_t{1} << shape.size()); ++mask) {
      const ReduceGeometry g = reduce_geometry(shape, mask);
      std::vector<float> mean(g.out_volume);
      for (auto& m : mean) m = std::uniform_real_distribution<float>(-5, 5)(gen);
      for (ReduceOp op : ops) {
        const int ddof = op == ReduceOp::kStdDev ? 1 : 0;
        if (ddof && g.reduced_volume <= 1) continue;
        std::vector<float> out(g.out_volume, -12345.f);
        reduce_cpu(op, out.data(), DType::kFloat32, in.data(), DType::kFloat32, g, mean.data(),
                   ddof);
        auto want = reference(op, in, shape, mask, mean, ddof);
        ASSERT_EQ(want.size(), out.size());
        for (size_t o = 0; o < out.size(); ++o) {
          EXPECT_NEAR(out[o], static_cast<double>(want[o]), 1e-5 * std::abs(double(want[o])) + 1e-5)
              << "op " << int(op) << " shape " << shape_to_string(shape) << " mask " << mask
              << " element " << o;
        }
      }
    }
  }
}

TEST(ReduceCpu, IntegerSumsWrapInTheOutputTypeAsDalis) {
  const std::vector<uint8_t> in = {200, 100, 50, 7};  // sum 357
  const ReduceGeometry g = reduce_geometry({4}, 1);
  uint8_t u8 = 0;
  reduce_cpu(ReduceOp::kSum, &u8, DType::kUInt8, in.data(), DType::kUInt8, g);
  EXPECT_EQ(u8, 357 % 256);
  uint64_t u64 = 0;
  reduce_cpu(ReduceOp::kSum, &u64, DType::kUInt64, in.data(), DType::kUInt8, g);
  EXPECT_EQ(u64, 357u);
  // The mean of a wrapped uint8 sum, scaled in float and truncated: (357 - 256) / 4.
  reduce_cpu(ReduceOp::kMean, &u8, DType::kUInt8, in.data(), DType::kUInt8, g);
  EXPECT_EQ(u8, 25);
  const std::vector<int8_t> s8 = {-100, -100, 50};  // -150 wraps to 106
  int8_t i8 = 0;
  reduce_cpu(ReduceOp::kSum, &i8, DType::kInt8, s8.data(), DType::kInt8, reduce_geometry({3}, 1));
  EXPECT_EQ(i8, 106);
  // Squares of 32-bit values in 64 bits.
  const std::vector<int32_t> big = {100000, -100000};
  int64_t sq = 0;
  reduce_cpu(ReduceOp::kMeanSquare, &sq, DType::kInt64, big.data(), DType::kInt32,
             reduce_geometry({2}, 1));
  EXPECT_EQ(sq, 10000000000);
}

TEST(ReduceCpu, EmptyReductionsGiveTheNeutralElement) {
  const ReduceGeometry g = reduce_geometry({0, 3}, 1);
  ASSERT_EQ(g.out_volume, 3);
  std::vector<float> out(3);
  reduce_cpu(ReduceOp::kSum, out.data(), DType::kFloat32, nullptr, DType::kFloat32, g);
  EXPECT_EQ(out[0], 0.f);
  std::vector<int16_t> mn(3);
  reduce_cpu(ReduceOp::kMin, mn.data(), DType::kInt16, nullptr, DType::kInt16, g);
  EXPECT_EQ(mn[1], 32767);
  reduce_cpu(ReduceOp::kMean, out.data(), DType::kFloat32, nullptr, DType::kFloat32, g);
  EXPECT_TRUE(std::isnan(out[2]));
}

TEST(ReduceCpu, RefusesTypesDaliRefuses) {
  const ReduceGeometry g = reduce_geometry({2}, 1);
  float f = 0;
  const uint16_t h[2] = {};
  EXPECT_THROW(reduce_cpu(ReduceOp::kSum, &f, DType::kFloat32, h, DType::kFloat16, g),
               InvalidArgument);
  int32_t i = 0;
  const float x[2] = {};
  EXPECT_THROW(reduce_cpu(ReduceOp::kSum, &i, DType::kInt32, x, DType::kFloat32, g),
               InvalidArgument);
}

TEST(ReduceCpu, GeometryMergesAdjacentAxesOfOneKind) {
  const ReduceGeometry g = reduce_geometry({2, 3, 4, 5}, 0b0011);  // reduce the outer two
  EXPECT_EQ(g.num_reduced, 1);
  EXPECT_EQ(g.reduced_extent[0], 6);
  EXPECT_EQ(g.reduced_stride[0], 20);
  EXPECT_EQ(g.num_kept, 1);
  EXPECT_EQ(g.kept_extent[0], 20);
  EXPECT_EQ(g.out_volume, 20);
  const ReduceGeometry h = reduce_geometry({4, 1, 5}, 0b101);  // the middle 1 does not split
  EXPECT_EQ(h.num_reduced, 1);
  EXPECT_EQ(h.reduced_extent[0], 20);
  EXPECT_EQ(h.num_kept, 0);
}

}  // namespace
}  // namespace sluice::kernels
