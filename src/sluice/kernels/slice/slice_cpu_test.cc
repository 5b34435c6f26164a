// The slice kernel against plain index arithmetic: every border rule, windows reaching out on
// both sides, per-channel fill values, type conversions.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sluice/kernels/slice/slice_kernel.h"

namespace sluice::kernels {
namespace {

// The border rules written out with loops instead of modular arithmetic.
int64_t reference_index(int64_t i, int64_t n, SliceBorder b) {
  if (b == SliceBorder::kConstant) return i >= 0 && i < n ? i : -1;
  if (b == SliceBorder::kClamp) return std::min(std::max<int64_t>(i, 0), n - 1);
  if (b == SliceBorder::kWrap) {
    while (i < 0) i += n;
    while (i >= n) i -= n;
    return i;
  }
  const bool repeat = b == SliceBorder::kReflect1001;
  if (n == 1) return 0;
  while (i < 0 || i >= n) {
    if (i < 0) i = repeat ? -1 - i : -i;
    if (i >= n) i = repeat ? 2 * n - 1 - i : 2 * n - 2 - i;
  }
  return i;
}

TEST(SliceCpu, BorderRulesMatchLoops) {
  for (auto b : {SliceBorder::kConstant, SliceBorder::kClamp, SliceBorder::kReflect1001,
                 SliceBorder::kReflect101, SliceBorder::kWrap}) {
    for (int64_t n = 1; n < 6; ++n) {
      for (int64_t i = -20; i < 20; ++i) {
        EXPECT_EQ(slice_border_index(i, n, b), reference_index(i, n, b))
            << "i " << i << " n " << n << " rule " << int(b);
      }
    }
  }
}

TEST(SliceCpu, RandomWindowsMatchIndexArithmetic) {
  std::mt19937 gen(5);
  for (int t = 0; t < 200; ++t) {
    const int nd = std::uniform_int_distribution<int>(1, 4)(gen);
    const auto border = static_cast<SliceBorder>(std::uniform_int_distribution<int>(0, 4)(gen));
    SliceDesc d;
    d.ndim = nd;
    int64_t in_n = 1, out_n = 1;
    for (int k = 0; k < nd; ++k) {
      d.in_shape[k] = std::uniform_int_distribution<int64_t>(1, 6)(gen);
      d.out_shape[k] = std::uniform_int_distribution<int64_t>(0, 9)(gen);
      d.anchor[k] = std::uniform_int_distribution<int64_t>(-8, 8)(gen);
      in_n *= d.in_shape[k];
      out_n *= d.out_shape[k];
    }
    std::vector<int16_t> in(in_n);
    for (auto& v : in) v = static_cast<int16_t>(std::uniform_int_distribution<int>(-300, 300)(gen));
    d.channel_dim = nd > 1 ? nd - 1 : -1;
    std::vector<uint8_t> fill(d.channel_dim >= 0 ? d.out_shape[nd - 1] + 1 : 1);
    for (size_t c = 0; c < fill.size(); ++c) fill[c] = static_cast<uint8_t>(200 + c);
    std::vector<uint8_t> out(out_n, 7);
    d.in = in.data();
    d.out = out.data();
    d.fill = fill.data();
    slice_cpu(d, DType::kInt16, DType::kUInt8, border);
    std::vector<int64_t> idx(nd, 0);
    for (int64_t o = 0; o < out_n; ++o) {
      int64_t off = 0;
      bool filled = false;
      for (int k = 0; k < nd; ++k) {
        const int64_t s = reference_index(d.anchor[k] + idx[k], d.in_shape[k], border);
        filled |= s < 0;
        off = off * d.in_shape[k] + std::max<int64_t>(s, 0);
      }
      const uint8_t want = filled ? fill[d.channel_dim >= 0 ? idx[d.channel_dim] : 0]
                                  : static_cast<uint8_t>(std::clamp<int>(in[off], 0, 255));
      ASSERT_EQ(out[o], want) << "trial " << t << " element " << o;
      for (int k = nd - 1; k >= 0; --k) {
        if (++idx[k] < d.out_shape[k]) break;
        idx[k] = 0;
      }
    }
  }
}

TEST(SliceCpu, ConversionsFollowDali) {
  EXPECT_EQ((slice_convert<uint8_t>(1.5f)), 1);
  EXPECT_EQ((slice_convert<uint8_t>(2.5f)), 2);
  EXPECT_EQ((slice_convert<uint8_t>(300.7f)), 255);
  EXPECT_EQ((slice_convert<uint8_t>(-0.5f)), 0);
  EXPECT_EQ((slice_convert<uint8_t>(int32_t{-5})), 0);
  EXPECT_EQ((slice_convert<uint8_t>(int32_t{300})), 255);
  EXPECT_EQ((slice_convert<uint8_t>(uint64_t{1} << 40)), 255);
  EXPECT_EQ((slice_convert<float>(int64_t{7})), 7.0f);
  uint8_t u8;
  slice_fill_value(-1.5, DType::kUInt8, &u8);
  EXPECT_EQ(u8, 255);
  int16_t i16;
  slice_fill_value(70000.5, DType::kInt16, &i16);
  EXPECT_EQ(i16, 4464);
}

}  // namespace
}  // namespace sluice::kernels
