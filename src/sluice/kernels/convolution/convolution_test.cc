// The convolution kernels on the CPU: border index rules, one pass against a direct sum, the
// separable passes against a direct 2-D convolution, the Gaussian windows' properties.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "sluice/kernels/convolution/convolution.h"
#include "sluice/kernels/convolution/convolution_element.h"
#include "sluice/kernels/convolution/filter.h"
#include "sluice/kernels/convolution/windows.h"

namespace sluice::kernels::conv {
namespace {

TEST(Convolution, BorderIndicesFollowDaliNames) {
  // n = 4: abcd
  const int64_t n = 4;
  auto idx = [&](int64_t x, Border b) { return border_index(x, n, b); };
  EXPECT_EQ(idx(-1, Border::kReflect101), 1);
  EXPECT_EQ(idx(-3, Border::kReflect101), 3);
  EXPECT_EQ(idx(4, Border::kReflect101), 2);
  EXPECT_EQ(idx(-1, Border::kReflect1001), 0);
  EXPECT_EQ(idx(4, Border::kReflect1001), 3);
  EXPECT_EQ(idx(-1, Border::kWrap), 3);
  EXPECT_EQ(idx(5, Border::kWrap), 1);
  EXPECT_EQ(idx(-7, Border::kClamp), 0);
  EXPECT_EQ(idx(9, Border::kClamp), 3);
  EXPECT_EQ(idx(-1, Border::kConstant), -1);
  EXPECT_EQ(border_index(-5, 1, Border::kReflect101), 0);
  for (int64_t x = -20; x < 20; ++x) {
    for (Border b : {Border::kReflect101, Border::kReflect1001, Border::kWrap, Border::kClamp}) {
      const int64_t i = idx(x, b);
      EXPECT_TRUE(i >= 0 && i < n) << x;
    }
  }
}

TEST(Convolution, GaussianWindowIsNormalisedAndSymmetric) {
  for (float sigma : {0.5f, 1.0f, 2.7f}) {
    const int d = gaussian_diameter(sigma);
    EXPECT_EQ(d, 2 * static_cast<int>(std::ceil(3 * sigma)) + 1);
    const auto w = gaussian_window(sigma, d);
    double sum = 0;
    for (int k = 0; k < d; ++k) {
      sum += w[k];
      EXPECT_EQ(w[k], w[d - 1 - k]);
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  EXPECT_FLOAT_EQ(gaussian_sigma(3), 0.8f);
  EXPECT_FLOAT_EQ(gaussian_sigma(7), 1.4f);
}

TEST(Convolution, SeparablePassesEqualADirectConvolution) {
  std::mt19937 gen(5);
  const int h = 13, w = 9, c = 2;
  std::vector<uint8_t> in(h * w * c);
  for (auto& v : in) v = static_cast<uint8_t>(gen());
  const auto wy = gaussian_window(1.2f, 7), wx = gaussian_window(0.6f, 3);
  std::vector<float> out(in.size()), tmp(in.size());
  SeparableShape shape;
  shape.axes = 2;
  shape.extent[0] = h;
  shape.extent[1] = w;
  shape.channels = c;
  void* t[2] = {tmp.data(), nullptr};
  const float* windows[3] = {wy.data(), wx.data()};
  const int sizes[3] = {7, 3};
  separable_cpu(separable_passes(in.data(), out.data(), t, shape, windows, sizes, 2.0f),
                DType::kUInt8, DType::kFloat32);
  auto reflect = [](int x, int n) { return x < 0 ? -x : x >= n ? 2 * n - 2 - x : x; };
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      for (int ch = 0; ch < c; ++ch) {
        double want = 0;
        for (int i = 0; i < 7; ++i) {
          for (int j = 0; j < 3; ++j) {
            want +=
                wy[i] * wx[j] * in[(reflect(y - 3 + i, h) * w + reflect(x - 1 + j, w)) * c + ch];
          }
        }
        EXPECT_NEAR(out[(y * w + x) * c + ch], 2 * want, 1e-3) << y << " " << x;
      }
    }
  }
}

TEST(Convolution, ConstantBorderUsesTheFillValue) {
  const std::vector<float> in = {1, 2, 3};
  const std::vector<float> window = {1, 1, 1};
  std::vector<float> out(3);
  AxisPass p;
  p.in = in.data();
  p.out = out.data();
  p.window = window.data();
  p.extent = 3;
  p.size = 3;
  p.anchor = 1;
  p.border = Border::kConstant;
  p.fill = 10;
  convolve_axis_cpu(p, DType::kFloat32, DType::kFloat32);
  EXPECT_EQ(out, (std::vector<float>{13, 6, 15}));
}

TEST(Convolution, LaplacianWindowsAreOpenCvs) {
  EXPECT_EQ(laplacian_smoothing_window(1), (std::vector<float>{1}));
  EXPECT_EQ(laplacian_smoothing_window(5), (std::vector<float>{1, 4, 6, 4, 1}));
  EXPECT_EQ(laplacian_derivative_window(3), (std::vector<float>{1, -2, 1}));
  EXPECT_EQ(laplacian_derivative_window(5), (std::vector<float>{1, 0, -2, 0, 1}));
  EXPECT_EQ(laplacian_derivative_window(7), (std::vector<float>{1, 2, -1, -4, -1, 2, 1}));
}

TEST(Convolution, PassAddsTheGivenImageAfterScaling) {
  const std::vector<float> in = {1, 2, 3};
  const std::vector<float> add = {10, 20, 30};
  const std::vector<float> window = {1};
  std::vector<uint8_t> out(3);
  AxisPass p;
  p.in = in.data();
  p.out = out.data();
  p.window = window.data();
  p.add = add.data();
  p.extent = 3;
  p.scale = 0.5f;
  convolve_axis_cpu(p, DType::kFloat32, DType::kUInt8);
  EXPECT_EQ(out, (std::vector<uint8_t>{11, 21, 32}));  // 10.5 -> 11, 31.5 -> 32: away from 0
}

TEST(Filter, CorrelatesWithTheAnchorAndRoundsTiesToEven) {
  // 1 x 4 image, 1 x 3 kernel [0.5, 0, 0.5] anchored at 1: out[x] = (in[x-1] + in[x+1]) / 2.
  const std::vector<uint8_t> in = {1, 2, 4, 9};
  const std::vector<float> kernel = {0.5f, 0.0f, 0.5f};
  std::vector<uint8_t> out(4);
  FilterSample s;
  s.in = in.data();
  s.out = out.data();
  s.kernel = kernel.data();
  s.in_extent[0] = s.out_extent[0] = 1;
  s.in_extent[1] = s.out_extent[1] = 4;
  s.k_extent[0] = 1;
  s.k_extent[1] = 3;
  s.anchor[1] = 1;
  s.border = Border::kClamp;
  filter_cpu(s, DType::kUInt8, DType::kUInt8);
  EXPECT_EQ(out, (std::vector<uint8_t>{2, 2, 6, 6}));  // 1.5 -> 2, 2.5 -> 2, 5.5 -> 6, 6.5 -> 6
  // 'valid': the kernel at anchor 0, positions within the image only.
  s.anchor[1] = 0;
  s.out_extent[1] = 2;
  std::vector<float> valid(2);
  s.out = valid.data();
  filter_cpu(s, DType::kUInt8, DType::kFloat32);
  EXPECT_EQ(valid, (std::vector<float>{2.5f, 5.5f}));
}

}  // namespace
}  // namespace sluice::kernels::conv
