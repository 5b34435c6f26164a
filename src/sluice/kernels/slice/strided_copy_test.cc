// Strided copies (slices with steps, indices) against plain index arithmetic, and the merging of
// contiguous dimensions.

#include "sluice/kernels/slice/strided_copy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace sluice::kernels {
namespace {

// Copies with explicit loops: out[...] = in[start + i * step] per dimension.
std::vector<int32_t> reference(const std::vector<int32_t>& in, const Shape& shape,
                               const Shape& start, const Shape& step, const Shape& extent) {
  std::vector<int32_t> out;
  Shape idx(shape.size(), 0);
  const int64_t n = volume(extent);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < shape.size(); ++d) off = off * shape[d] + start[d] + idx[d] * step[d];
    out.push_back(in[static_cast<size_t>(off)]);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < extent[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

TEST(StridedCopy, RandomSlicesMatchIndexArithmetic) {
  std::mt19937 gen(3);
  for (int t = 0; t < 300; ++t) {
    const int nd = std::uniform_int_distribution<int>(1, 5)(gen);
    Shape shape(nd), start(nd), step(nd), extent(nd);
    for (int d = 0; d < nd; ++d) {
      shape[d] = std::uniform_int_distribution<int64_t>(1, 7)(gen);
      const int kind = std::uniform_int_distribution<int>(0, 3)(gen);
      if (kind == 0) {  // the whole dimension
        start[d] = 0, step[d] = 1, extent[d] = shape[d];
      } else if (kind == 1) {  // an index
        start[d] = std::uniform_int_distribution<int64_t>(0, shape[d] - 1)(gen);
        step[d] = 1, extent[d] = 1;
      } else {  // a range with a step, either way
        step[d] = std::uniform_int_distribution<int64_t>(1, 3)(gen) * (kind == 2 ? 1 : -1);
        start[d] = std::uniform_int_distribution<int64_t>(0, shape[d] - 1)(gen);
        const int64_t room = step[d] > 0 ? shape[d] - start[d] : start[d] + 1;
        extent[d] =
            std::uniform_int_distribution<int64_t>(0, (room - 1) / std::abs(step[d]) + 1)(gen);
      }
    }
    std::vector<int32_t> in(static_cast<size_t>(volume(shape)));
    std::iota(in.begin(), in.end(), 1);
    std::vector<int32_t> out(static_cast<size_t>(volume(extent)), -1);
    StridedCopyDesc d;
    ASSERT_TRUE(describe_strided_copy(d, out.data(), in.data(), 4, shape, start, step, extent));
    EXPECT_EQ(strided_copy_volume(d), volume(extent));
    strided_copy_cpu(d, 4);
    ASSERT_EQ(out, reference(in, shape, start, step, extent)) << "case " << t;
  }
}

TEST(StridedCopy, MergesContiguousDimensions) {
  StridedCopyDesc d;
  int64_t in[24] = {}, out[24] = {};
  ASSERT_TRUE(describe_strided_copy(d, out, in, 8, {2, 3, 4}, {0, 0, 0}, {1, 1, 1}, {2, 3, 4}));
  EXPECT_EQ(d.ndim, 1);
  EXPECT_EQ(d.shape[0], 24);
  ASSERT_TRUE(describe_strided_copy(d, out, in, 8, {2, 3, 4}, {1, 0, 0}, {1, 1, 1}, {1, 3, 4}));
  EXPECT_EQ(d.ndim, 1);
  EXPECT_EQ(static_cast<const int64_t*>(d.in), in + 12);
  ASSERT_TRUE(describe_strided_copy(d, out, in, 8, {2, 3, 4}, {1, 2, 3}, {-1, -1, -1}, {2, 3, 4}));
  EXPECT_EQ(d.ndim, 1);  // reversed in every dimension: one run backwards
  EXPECT_EQ(d.stride[0], -1);
}

TEST(StridedCopy, PermutedCopiesMatchIndexArithmetic) {
  std::mt19937 gen(4);
  for (int t = 0; t < 200; ++t) {
    const int nd = std::uniform_int_distribution<int>(1, 5)(gen);
    Shape shape(nd);
    for (auto& e : shape) e = std::uniform_int_distribution<int64_t>(1, 5)(gen);
    std::vector<int> perm(nd);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), gen);
    std::vector<int32_t> in(static_cast<size_t>(volume(shape)));
    std::iota(in.begin(), in.end(), 1);
    std::vector<int32_t> out(in.size(), -1);
    StridedCopyDesc d;
    ASSERT_TRUE(describe_permuted_copy(d, out.data(), in.data(), 4, shape, perm));
    strided_copy_cpu(d, 4);
    Shape out_shape(nd), idx(nd, 0);
    for (int k = 0; k < nd; ++k) out_shape[k] = shape[perm[k]];
    for (size_t o = 0; o < out.size(); ++o) {
      Shape in_idx(nd);
      for (int k = 0; k < nd; ++k) in_idx[perm[k]] = idx[k];
      int64_t off = 0;
      for (int k = 0; k < nd; ++k) off = off * shape[k] + in_idx[k];
      ASSERT_EQ(out[o], in[static_cast<size_t>(off)]) << "case " << t;
      for (int k = nd - 1; k >= 0; --k) {
        if (++idx[k] < out_shape[k]) break;
        idx[k] = 0;
      }
    }
  }
}

}  // namespace
}  // namespace sluice::kernels
