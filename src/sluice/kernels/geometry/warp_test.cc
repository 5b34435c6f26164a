// warp_cpu against plain index arithmetic: identity and integer shifts copy pixels, points
// outside take the fill value or the clamped border, linear interpolation halfway between two
// pixels averages them (rounded half away from zero), inverse maps, refused types.

#include "sluice/kernels/geometry/warp.h"

#include <gtest/gtest.h>

#include <vector>

namespace sluice::kernels {
namespace {

WarpSample sample(const std::vector<uint8_t>& in, std::vector<uint8_t>& out, int64_t h, int64_t w,
                  int c, std::initializer_list<float> m) {
  WarpSample s;
  s.in = in.data();
  s.out = out.data();
  s.in_h = s.out_h = h;
  s.in_w = s.out_w = w;
  s.channels = c;
  std::copy(m.begin(), m.end(), s.m);
  return s;
}

TEST(WarpCpu, ShiftsCopyPixelsAndBordersFillOrClamp) {
  const int64_t h = 5, w = 7;
  const int c = 2;
  std::vector<uint8_t> in(h * w * c), out(h * w * c);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 7 + 1);
  for (bool linear : {false, true}) {
    for (bool clamp : {false, true}) {
      // out(x, y) = in(x + 2, y - 1)
      WarpSample s = sample(in, out, h, w, c, {1, 0, 2, 0, 1, -1});
      s.linear = linear;
      s.clamp = clamp;
      s.fill = 300.0f;  // saturates to 255
      warp_cpu(s, DType::kUInt8, DType::kUInt8);
      for (int64_t y = 0; y < h; ++y) {
        for (int64_t x = 0; x < w; ++x) {
          int64_t sy = y - 1, sx = x + 2;
          const bool outside = sy < 0 || sx >= w;
          sy = std::max<int64_t>(sy, 0);
          sx = std::min<int64_t>(sx, w - 1);
          for (int ch = 0; ch < c; ++ch) {
            const int expected = outside && !clamp ? 255 : in[(sy * w + sx) * c + ch];
            EXPECT_EQ(out[(y * w + x) * c + ch], expected)
                << "y " << y << " x " << x << " linear " << linear << " clamp " << clamp;
          }
        }
      }
    }
  }
}

TEST(WarpCpu, LinearHalfwayAveragesAndInverseMapsUndo) {
  std::vector<uint8_t> in = {10, 13, 200, 100}, out(4);
  // Half a pixel to the right: each output is the mean of a pixel and its right neighbour.
  WarpSample s = sample(in, out, 1, 4, 1, {1, 0, 0.5f, 0, 1, 0});
  warp_cpu(s, DType::kUInt8, DType::kUInt8);
  EXPECT_EQ(out, (std::vector<uint8_t>{12, 107, 150, 100}));  // 11.5 -> 12, 106.5 -> 107
  // The forward map of a shift by +1 inverted is the shift by -1.
  s = sample(in, out, 1, 4, 1, {1, 0, 1, 0, 1, 0});
  s.invert = true;
  s.linear = false;
  s.clamp = false;
  warp_cpu(s, DType::kUInt8, DType::kUInt8);
  EXPECT_EQ(out, (std::vector<uint8_t>{0, 10, 13, 200}));
  EXPECT_THROW(warp_cpu(s, DType::kUInt8, DType::kInt16), InvalidArgument);
  EXPECT_THROW(warp_cpu(s, DType::kUInt16, DType::kUInt16), InvalidArgument);
}

}  // namespace
}  // namespace sluice::kernels
