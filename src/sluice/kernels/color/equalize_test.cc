// equalize_cpu against hand-computed tables and a plain reference of OpenCV's formula.

#include "sluice/kernels/color/equalize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace sluice::kernels {
namespace {

// The formula written out: value v maps to round-half-even((cdf(v) - cdf(min)) * 255 / (n -
// cdf(min))) in float.
std::vector<uint8_t> reference(const std::vector<uint8_t>& in) {
  std::vector<int64_t> cdf(256, 0);
  for (uint8_t v : in) ++cdf[v];
  int lo = 0;
  while (cdf[lo] == 0) ++lo;
  for (int v = 1; v < 256; ++v) cdf[v] += cdf[v - 1];
  const int64_t n = static_cast<int64_t>(in.size());
  std::vector<uint8_t> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (cdf[lo] == n) {
      out[i] = in[i];
      continue;
    }
    const float scale = 255.0f / static_cast<float>(n - cdf[lo]);
    out[i] = static_cast<uint8_t>(std::nearbyint(static_cast<float>(cdf[in[i]] - cdf[lo]) * scale));
  }
  return out;
}

TEST(EqualizeCpu, HandComputedTable) {
  const std::vector<uint8_t> in = {0, 0, 1, 2};  // scale 127.5: 1 -> 127.5 -> 128 (even)
  std::vector<uint8_t> out(4);
  equalize_cpu({in.data(), out.data(), 4, 1});
  EXPECT_EQ(out, (std::vector<uint8_t>{0, 0, 128, 255}));
}

TEST(EqualizeCpu, OneValueIsKept) {
  const std::vector<uint8_t> in(10, 77);
  std::vector<uint8_t> out(10, 0);
  equalize_cpu({in.data(), out.data(), 10, 1});
  EXPECT_EQ(out, in);
}

TEST(EqualizeCpu, InterleavedChannelsAreIndependent) {
  std::mt19937 gen(5);
  const int64_t pixels = 1000;
  const int channels = 3;
  std::vector<uint8_t> in(pixels * channels), out(in.size(), 0xA5);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(gen() % (40 + 60 * (i % 3)));
  for (int c = 0; c < channels; ++c) {
    equalize_cpu({in.data() + c, out.data() + c, pixels, channels});
  }
  for (int c = 0; c < channels; ++c) {
    std::vector<uint8_t> plane(pixels);
    for (int64_t p = 0; p < pixels; ++p) plane[p] = in[p * channels + c];
    const std::vector<uint8_t> want = reference(plane);
    for (int64_t p = 0; p < pixels; ++p) {
      ASSERT_EQ(out[p * channels + c], want[p]) << "channel " << c << " pixel " << p;
    }
  }
}

}  // namespace
}  // namespace sluice::kernels
