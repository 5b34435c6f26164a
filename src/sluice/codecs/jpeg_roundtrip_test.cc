// jpeg_roundtrip: lossy but close at high quality, further at low quality, flat colours kept,
// qualities outside 1..100 clamped, odd sizes.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "sluice/codecs/jpeg_roundtrip.h"

namespace sluice::codecs {
namespace {

std::vector<uint8_t> gradient(int h, int w) {
  std::vector<uint8_t> img(h * w * 3);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &img[(y * w + x) * 3];
      p[0] = static_cast<uint8_t>(4 * x), p[1] = static_cast<uint8_t>(3 * y), p[2] = 128;
    }
  }
  return img;
}

int64_t error(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  int64_t e = 0;
  for (size_t i = 0; i < a.size(); ++i) e += std::abs(a[i] - b[i]);
  return e;
}

TEST(JpegRoundtrip, QualityControlsTheError) {
  const int h = 37, w = 45;
  const auto img = gradient(h, w);
  std::vector<uint8_t> scratch, hi(img.size()), lo(img.size()), clamped(img.size());
  jpeg_roundtrip(img.data(), hi.data(), h, w, 95, scratch);
  jpeg_roundtrip(img.data(), lo.data(), h, w, 5, scratch);
  EXPECT_LT(error(img, hi), error(img, lo));
  EXPECT_LT(error(img, hi), static_cast<int64_t>(img.size()) * 3);
  jpeg_roundtrip(img.data(), clamped.data(), h, w, -7, scratch);  // as quality 1
  std::vector<uint8_t> one(img.size());
  jpeg_roundtrip(img.data(), one.data(), h, w, 1, scratch);
  EXPECT_EQ(clamped, one);
}

TEST(JpegRoundtrip, FlatColourSurvives) {
  std::vector<uint8_t> img(9 * 7 * 3), out(img.size()), scratch;
  for (size_t i = 0; i < img.size(); i += 3) img[i] = 200, img[i + 1] = 100, img[i + 2] = 50;
  jpeg_roundtrip(img.data(), out.data(), 9, 7, 90, scratch);
  for (size_t i = 0; i < img.size(); ++i) EXPECT_NEAR(out[i], img[i], 2) << i;
}

}  // namespace
}  // namespace sluice::codecs
