#include "sluice/kernels/resize/resize_normalize_cpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/core/float16.h"

namespace sluice::kernels {
namespace {

// A 3x4 RGB image with distinct values: pixel (y, x) channel c = 10 * (4 y + x) + c + 1.
std::vector<uint8_t> test_image() {
  std::vector<uint8_t> im(3 * 4 * 3);
  for (int y = 0; y < 3; y++) {
    for (int x = 0; x < 4; x++) {
      for (int c = 0; c < 3; c++)
        im[(y * 4 + x) * 3 + c] = static_cast<uint8_t>(10 * (4 * y + x) + c + 1);
    }
  }
  return im;
}

// The crop (y 1, x 1, 2x3), mirrored, against the formula in double: within float rounding
// of the single-precision evaluation (the exact bits follow the project's CMN arithmetic).
TEST(ResizeNormalizeCpu, CropMirrorNormalizeMatchesFormula) {
  const std::vector<uint8_t> im = test_image();
  ResizeNormalizeParams n;
  n.mean = {100, 50, 25, 0};
  n.stddev = {10, 20, 40, 1};
  n.scale = 2;
  n.shift = 0.5f;
  const ResizeCrop crop{1, 1, 2, 3};
  for (ResizeOutputLayout layout : {ResizeOutputLayout::kHWC, ResizeOutputLayout::kCHW}) {
    std::vector<float> out(2 * 3 * 3, NAN);
    crop_mirror_normalize_u8_cpu(ConstHwcImage(im.data(), DType::kUInt8, 3, 4, 3), crop, true, n,
                                 layout, DType::kFloat32, out.data());
    std::vector<uint16_t> half(2 * 3 * 3, 0xFFFF);
    crop_mirror_normalize_u8_cpu(ConstHwcImage(im.data(), DType::kUInt8, 3, 4, 3), crop, true, n,
                                 layout, DType::kFloat16, half.data());
    for (int y = 0; y < 2; y++) {
      for (int x = 0; x < 3; x++) {
        for (int c = 0; c < 3; c++) {
          const int src_x = 1 + (2 - x);  // mirrored within the crop
          const double v = im[((1 + y) * 4 + src_x) * 3 + c];
          const double want = (v - n.mean[c]) / n.stddev[c] * n.scale + n.shift;
          const size_t i =
              layout == ResizeOutputLayout::kHWC ? (y * 3 + x) * 3 + c : (c * 2 + y) * 3 + x;
          EXPECT_NEAR(out[i], want, 1e-5 * std::max(1.0, std::fabs(want)))
              << "y " << y << " x " << x << " c " << c;
          EXPECT_EQ(half[i], float_to_half_bits(out[i])) << "y " << y << " x " << x << " c " << c;
        }
      }
    }
  }
}

TEST(ResizeNormalizeCpu, RejectsBadArguments) {
  const std::vector<uint8_t> im = test_image();
  const ConstHwcImage in(im.data(), DType::kUInt8, 3, 4, 3);
  std::vector<float> out(64);
  ResizeNormalizeParams n;
  EXPECT_THROW(crop_mirror_normalize_u8_cpu(in, {2, 0, 2, -1}, false, n, ResizeOutputLayout::kHWC,
                                            DType::kFloat32, out.data()),
               InvalidArgument);
  EXPECT_THROW(crop_mirror_normalize_u8_cpu(in, {}, false, n, ResizeOutputLayout::kHWC,
                                            DType::kUInt8, out.data()),
               InvalidArgument);
  n.stddev[2] = 0;
  EXPECT_THROW(crop_mirror_normalize_u8_cpu(in, {}, false, n, ResizeOutputLayout::kHWC,
                                            DType::kFloat32, out.data()),
               InvalidArgument);
  n.stddev[2] = 1e-38f;
  n.scale = 1e38f;
  EXPECT_THROW(crop_mirror_normalize_u8_cpu(in, {}, false, n, ResizeOutputLayout::kHWC,
                                            DType::kFloat32, out.data()),
               InvalidArgument);
  const ConstHwcImage floats(out.data(), DType::kFloat32, 3, 4, 3);
  EXPECT_THROW(crop_mirror_normalize_u8_cpu(floats, {}, false, ResizeNormalizeParams{},
                                            ResizeOutputLayout::kHWC, DType::kFloat32, out.data()),
               InvalidArgument);
}

}  // namespace
}  // namespace sluice::kernels
