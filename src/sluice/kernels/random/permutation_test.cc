#include "sluice/kernels/random/permutation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

namespace sluice::kernels {
namespace {

std::vector<int32_t> draw(int n, bool rep, bool nfp, int64_t id) {
  std::vector<int32_t> v(n, -1);
  batch_permutation_cpu(v.data(), n, rep, nfp, SampleRng(11, 0, id));
  return v;
}

TEST(BatchPermutation, PermutationsAreUniformAndRepeatable) {
  std::map<std::vector<int32_t>, int> seen;
  const int trials = 6000;
  for (int t = 0; t < trials; ++t) {
    auto v = draw(3, false, false, t);
    auto sorted = v;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(sorted, (std::vector<int32_t>{0, 1, 2}));
    ++seen[v];
    ASSERT_EQ(v, draw(3, false, false, t));
  }
  ASSERT_EQ(seen.size(), 6u);
  for (const auto& [p, count] : seen) EXPECT_NEAR(count, trials / 6, trials / 6 / 5);
}

TEST(BatchPermutation, DerangementsHaveNoFixedPointsAndAreUniform) {
  std::map<std::vector<int32_t>, int> seen;
  const int trials = 9000;
  for (int t = 0; t < trials; ++t) {
    auto v = draw(4, false, true, t);
    for (int i = 0; i < 4; ++i) ASSERT_NE(v[i], i);
    auto sorted = v;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(sorted, (std::vector<int32_t>{0, 1, 2, 3}));
    ++seen[v];
  }
  ASSERT_EQ(seen.size(), 9u);  // the derangements of 4 elements
  for (const auto& [p, count] : seen) EXPECT_NEAR(count, trials / 9, trials / 9 / 5);
}

TEST(BatchPermutation, RepetitionsStayInRangeAndAvoidTheirIndexWhenAsked) {
  std::vector<int> hits(5, 0);
  bool repeated = false;
  for (int t = 0; t < 2000; ++t) {
    auto v = draw(5, true, false, t);
    for (int32_t x : v) {
      ASSERT_GE(x, 0);
      ASSERT_LT(x, 5);
      ++hits[x];
    }
    std::sort(v.begin(), v.end());
    repeated |= std::adjacent_find(v.begin(), v.end()) != v.end();
    auto w = draw(5, true, true, t);
    for (int i = 0; i < 5; ++i) {
      ASSERT_NE(w[i], i);
      ASSERT_GE(w[i], 0);
      ASSERT_LT(w[i], 5);
    }
  }
  EXPECT_TRUE(repeated);
  for (int h : hits) EXPECT_NEAR(h, 2000, 300);
}

TEST(BatchPermutation, OneSampleIsAlwaysZero) {
  for (bool rep : {false, true}) {
    for (bool nfp : {false, true}) EXPECT_EQ(draw(1, rep, nfp, 3), (std::vector<int32_t>{0}));
  }
}

}  // namespace
}  // namespace sluice::kernels
