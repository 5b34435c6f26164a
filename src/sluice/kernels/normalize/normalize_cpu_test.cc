#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "sluice/kernels/normalize/normalize.h"

namespace sluice::kernels {
namespace {

// The parameter index of every input element by its multi-index (not the merged geometry's).
std::vector<int64_t> param_index(const Shape& shape, uint64_t mask) {
  std::vector<int64_t> out, idx(shape.size(), 0);
  for (int64_t i = 0; i < volume(shape); ++i) {
    int64_t p = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      p = p * (((mask >> d) & 1) ? 1 : shape[d]) + (((mask >> d) & 1) ? 0 : idx[d]);
    }
    out.push_back(p);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0 && ++idx[d] == shape[d]; --d)
      idx[d] = 0;
  }
  return out;
}

TEST(NormalizeCpu, BroadcastsParametersAlongNormalizedAxes) {
  std::mt19937 gen(3);
  for (const Shape& shape : std::vector<Shape>{{5}, {4, 3}, {3, 1, 4}, {2, 3, 4, 5}}) {
    for (uint64_t mask = 0; mask < (uint64_t{1} << shape.size()); ++mask) {
      const NormalizeGeometry g = normalize_geometry(shape, mask);
      const auto pidx = param_index(shape, mask);
      int64_t params = 1;
      for (size_t d = 0; d < shape.size(); ++d) params *= ((mask >> d) & 1) ? 1 : shape[d];
      std::vector<float> in(volume(shape)), mean(params), inv(params), out(in.size());
      for (auto& v : in) v = std::uniform_real_distribution<float>(-10, 10)(gen);
      for (auto& v : mean) v = std::uniform_real_distribution<float>(-1, 1)(gen);
      for (auto& v : inv) v = std::uniform_real_distribution<float>(0.5, 2)(gen);
      normalize_cpu(out.data(), DType::kFloat32, in.data(), DType::kFloat32, g, mean.data(),
                    inv.data(), 0.25f);
      for (size_t i = 0; i < in.size(); ++i) {
        ASSERT_EQ(out[i], (in[i] - mean[pidx[i]]) * inv[pidx[i]] + 0.25f)
            << shape_to_string(shape) << " mask " << mask << " element " << i;
      }
    }
  }
}

TEST(NormalizeCpu, ParameterIndicesPastTheInt32Range) {
  const int64_t big = int64_t{1} << 30;
  const NormalizeGeometry g = normalize_geometry({3, big}, 0b01);  // 3 * 2^30 elements
  EXPECT_EQ(g.params, big);
  for (int64_t i : {int64_t{0}, big - 1, big, 2 * big + 5, 3 * big - 1}) {
    EXPECT_EQ(normalize_param_index(g, i), i % big) << i;
  }
  EXPECT_EQ(normalize_geometry({4, 5}, 0b11).params, 1);
}

TEST(NormalizeCpu, IntegerOutputsRoundHalfAwayFromZeroAndSaturate) {
  const std::vector<float> in = {1, 3, 5, -1, -3, 7, -7, 1000, -1000};
  const NormalizeGeometry g = normalize_geometry({9}, 1);
  const float mean = 0, inv = 0.5f;
  std::vector<int8_t> out(in.size());
  normalize_cpu(out.data(), DType::kInt8, in.data(), DType::kFloat32, g, &mean, &inv, 0);
  EXPECT_EQ(out, (std::vector<int8_t>{1, 2, 3, -1, -2, 4, -4, 127, -128}));
}

TEST(NormalizeCpu, FoldsStatisticsWeightedByTheirCounts) {
  const std::vector<float> m0 = {1, 2}, m1 = {4, 8};
  const NormalizePart parts[] = {{m0.data(), 1}, {m1.data(), 3}};
  std::vector<float> out(2);
  normalize_fold_cpu({parts, 2, out.data(), 2}, {NormalizeFoldKind::kMean, 0, 0, 1});
  EXPECT_EQ(out, (std::vector<float>{(1 + 12) / 4.f, (2 + 24) / 4.f}));
  // Variances 1 (over 1) and 4 (over 3): sum of squares 13 over 4 - ddof 1 = 3.
  const std::vector<float> v0 = {1}, v1 = {4};
  const NormalizePart vparts[] = {{v0.data(), 1}, {v1.data(), 3}};
  normalize_fold_cpu({vparts, 2, out.data(), 1}, {NormalizeFoldKind::kInvStdDev, 1, 0, 2});
  EXPECT_FLOAT_EQ(out[0], 2 / std::sqrt(13.f / 3));
  // No variance without epsilon gives 0; too few elements for ddof with epsilon gives
  // scale / sqrt(epsilon).
  const std::vector<float> zero = {0};
  const NormalizePart zpart[] = {{zero.data(), 5}};
  normalize_fold_cpu({zpart, 1, out.data(), 1}, {NormalizeFoldKind::kInvStdDev, 0, 0, 1});
  EXPECT_EQ(out[0], 0.f);
  normalize_fold_cpu({zpart, 1, out.data(), 1}, {NormalizeFoldKind::kInvStdDev, 5, 4, 1});
  EXPECT_EQ(out[0], 0.5f);
}

TEST(NormalizeCpu, RefusesTypesDaliRefuses) {
  const NormalizeGeometry g = normalize_geometry({1}, 1);
  const float p = 0;
  double d = 0;
  float f = 0;
  EXPECT_THROW(normalize_cpu(&f, DType::kFloat32, &d, DType::kFloat64, g, &p, &p, 0),
               InvalidArgument);
  EXPECT_THROW(normalize_cpu(&d, DType::kInt64, &f, DType::kFloat32, g, &p, &p, 0),
               InvalidArgument);
}

}  // namespace
}  // namespace sluice::kernels
