#include "sluice/kernels/crop/crop_cpu.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/kernels/crop/crop_test_util.h"

namespace sluice {
namespace {

using crop_test::random_values;
using crop_test::ref_convert;
using crop_test::same_bits;

// A test image: plain storage and its own index arithmetic (not ImageView's).
template <typename T>
struct Img {
  int64_t h = 0, w = 0, c = 0;
  ImageLayout layout = ImageLayout::kHWC;
  std::vector<T> data;

  Img(int64_t h_, int64_t w_, int64_t c_, ImageLayout l) : h(h_), w(w_), c(c_), layout(l) {
    data.resize(static_cast<size_t>(h * w * c));
  }
  size_t index(int64_t y, int64_t x, int64_t ch) const {
    return static_cast<size_t>(layout == ImageLayout::kHWC ? (y * w + x) * c + ch
                                                           : (ch * h + y) * w + x);
  }
  T& operator()(int64_t y, int64_t x, int64_t ch) { return data[index(y, x, ch)]; }
  const T& operator()(int64_t y, int64_t x, int64_t ch) const { return data[index(y, x, ch)]; }
  ImageView<T> view() { return {data.data(), h, w, c, layout}; }
  ImageView<const T> cview() const { return {data.data(), h, w, c, layout}; }
  void poison() {
    if (!data.empty()) std::memset(static_cast<void*>(data.data()), 0xAB, data.size() * sizeof(T));
  }
};

template <typename T>
Img<T> random_image(int64_t h, int64_t w, int64_t c, ImageLayout l, std::mt19937& gen) {
  Img<T> img(h, w, c, l);
  img.data = random_values<T>(img.data.size(), gen);
  return img;
}

template <typename T>
void expect_equal(const Img<T>& got, const Img<T>& want, const std::string& what) {
  ASSERT_EQ(got.data.size(), want.data.size()) << what;
  for (int64_t y = 0; y < want.h; ++y)
    for (int64_t x = 0; x < want.w; ++x)
      for (int64_t ch = 0; ch < want.c; ++ch)
        ASSERT_TRUE(same_bits(got(y, x, ch), want(y, x, ch)))
            << what << ": mismatch at y=" << y << " x=" << x << " c=" << ch << " got "
            << crop_test::as_double(got(y, x, ch)) << " want "
            << crop_test::as_double(want(y, x, ch));
}

template <typename T>
class CropCpu : public ::testing::Test {};
using CropTypes = ::testing::Types<uint8_t, int8_t, uint16_t, int16_t, float16, float>;
TYPED_TEST_SUITE(CropCpu, CropTypes);

TYPED_TEST(CropCpu, MatchesIndexArithmeticWithPaddingAndTrim) {
  using T = TypeParam;
  std::mt19937 gen(1);
  for (ImageLayout layout : {ImageLayout::kHWC, ImageLayout::kCHW}) {
    for (int64_t channels : {1, 3, 4}) {
      Img<T> in = random_image<T>(23, 31, channels, layout, gen);
      const std::vector<float> fills[] = {{}, {-7.5f}, {3.5f, 300.7f, -1.0f, 2.5f}};
      const CropWindow windows[] = {{0, 0, 23, 31},  {5, 7, 10, 12},   {-4, -6, 12, 15},
                                    {20, 25, 9, 11}, {-3, -3, 30, 40}, {40, 50, 3, 3},
                                    {22, 30, 1, 1},  {3, 4, 0, 5}};
      for (const auto& fill_all : fills) {
        std::vector<float> fill = fill_all;
        if (fill.size() > 1) fill.resize(static_cast<size_t>(channels));
        if (fill.size() > 1 && channels == 1) fill = {fill_all[0]};
        for (CropWindow win0 : windows) {
          for (auto policy : {OutOfBoundsPolicy::kPad, OutOfBoundsPolicy::kTrimToShape}) {
            CropWindow win = apply_out_of_bounds_policy(win0, in.h, in.w, policy);
            Img<T> out(win.h, win.w, channels, layout), want(win.h, win.w, channels, layout);
            out.poison();
            crop_cpu<T>(in.cview(), out.view(), win, fill);
            for (int64_t y = 0; y < win.h; ++y)
              for (int64_t x = 0; x < win.w; ++x)
                for (int64_t ch = 0; ch < channels; ++ch) {
                  int64_t sy = win.y + y, sx = win.x + x;
                  bool inside = sy >= 0 && sy < in.h && sx >= 0 && sx < in.w;
                  float f = fill.empty() ? 0.0f : fill[fill.size() == 1 ? 0 : ch];
                  want(y, x, ch) = inside ? in(sy, sx, ch) : ref_convert<T>(f);
                }
            expect_equal(
                out, want,
                make_string(image_layout_name(layout), " C=", channels, " ", to_string(win0),
                            " policy ", out_of_bounds_policy_name(policy), " fills ", fill.size()));
          }
        }
      }
    }
  }
}

TYPED_TEST(CropCpu, FlipMatchesReversedIndices) {
  using T = TypeParam;
  std::mt19937 gen(2);
  for (ImageLayout layout : {ImageLayout::kHWC, ImageLayout::kCHW}) {
    for (auto [h, w, c] :
         {std::tuple<int64_t, int64_t, int64_t>{17, 29, 3}, {1, 40, 1}, {33, 1, 4}, {8, 8, 2}}) {
      Img<T> in = random_image<T>(h, w, c, layout, gen);
      for (int flags = 0; flags < 4; ++flags) {
        const bool fh = flags & 1, fv = flags & 2;
        Img<T> out(h, w, c, layout), want(h, w, c, layout);
        out.poison();
        flip_cpu<T>(in.cview(), out.view(), fh, fv);
        for (int64_t y = 0; y < h; ++y)
          for (int64_t x = 0; x < w; ++x)
            for (int64_t ch = 0; ch < c; ++ch)
              want(y, x, ch) = in(fv ? h - 1 - y : y, fh ? w - 1 - x : x, ch);
        expect_equal(out, want, make_string("flip h=", fh, " v=", fv, " ", h, "x", w, "x", c));
      }
    }
  }
}

// Independent primitives to compose the EXIF transforms from.
template <typename T>
Img<T> transpose(const Img<T>& a) {
  Img<T> b(a.w, a.h, a.c, a.layout);
  for (int64_t y = 0; y < b.h; ++y)
    for (int64_t x = 0; x < b.w; ++x)
      for (int64_t ch = 0; ch < a.c; ++ch) b(y, x, ch) = a(x, y, ch);
  return b;
}
template <typename T>
Img<T> mirror(const Img<T>& a) {  // left-right
  Img<T> b = a;
  for (int64_t y = 0; y < a.h; ++y)
    for (int64_t x = 0; x < a.w; ++x)
      for (int64_t ch = 0; ch < a.c; ++ch) b(y, x, ch) = a(y, a.w - 1 - x, ch);
  return b;
}
template <typename T>
Img<T> flip(const Img<T>& a) {  // top-bottom
  Img<T> b = a;
  for (int64_t y = 0; y < a.h; ++y)
    for (int64_t x = 0; x < a.w; ++x)
      for (int64_t ch = 0; ch < a.c; ++ch) b(y, x, ch) = a(a.h - 1 - y, x, ch);
  return b;
}

template <typename T>
Img<T> exif_reference(const Img<T>& a, int orientation) {
  switch (orientation) {
    case 1:
      return a;
    case 2:
      return mirror(a);
    case 3:
      return mirror(flip(a));
    case 4:
      return flip(a);
    case 5:
      return transpose(a);
    case 6:
      return mirror(transpose(a));  // rotate 90 clockwise
    case 7:
      return flip(mirror(transpose(a)));  // transverse
    case 8:
      return flip(transpose(a));  // rotate 90 counter-clockwise
  }
  throw std::logic_error("bad orientation");
}

TYPED_TEST(CropCpu, ExifOrientationMatchesComposedTransposesAndFlips) {
  using T = TypeParam;
  std::mt19937 gen(3);
  for (ImageLayout layout : {ImageLayout::kHWC, ImageLayout::kCHW}) {
    for (auto [h, w, c] :
         {std::tuple<int64_t, int64_t, int64_t>{13, 21, 3}, {1, 7, 3}, {9, 1, 1}, {16, 16, 4}}) {
      Img<T> in = random_image<T>(h, w, c, layout, gen);
      for (int o = 1; o <= 8; ++o) {
        Img<T> want = exif_reference(in, o);
        Img<T> out(want.h, want.w, c, layout);
        out.poison();
        exif_orientation_cpu<T>(in.cview(), out.view(), o);
        expect_equal(
            out, want,
            make_string("orientation ", o, " ", h, "x", w, "x", c, " ", image_layout_name(layout)));
      }
    }
  }
}

TEST(ExifOrientation, RotatesLikePil) {
  // 2 x 3 image with values 1..6 row-major; expected outputs written out by hand.
  Img<uint8_t> in(2, 3, 1, ImageLayout::kHWC);
  for (int i = 0; i < 6; ++i) in.data[i] = static_cast<uint8_t>(i + 1);
  const std::vector<uint8_t> want[9] = {
      {},
      {1, 2, 3, 4, 5, 6},
      {3, 2, 1, 6, 5, 4},
      {6, 5, 4, 3, 2, 1},
      {4, 5, 6, 1, 2, 3},
      {1, 4, 2, 5, 3, 6},  // 5: transpose
      {4, 1, 5, 2, 6, 3},  // 6: rotate 90 clockwise
      {6, 3, 5, 2, 4, 1},  // 7: transverse
      {3, 6, 2, 5, 1, 4},  // 8: rotate 90 counter-clockwise
  };
  for (int o = 1; o <= 8; ++o) {
    const bool swap = o >= 5;
    Img<uint8_t> out(swap ? 3 : 2, swap ? 2 : 3, 1, ImageLayout::kHWC);
    exif_orientation_cpu<uint8_t>(in.cview(), out.view(), o);
    EXPECT_EQ(out.data, want[o]) << "orientation " << o;
  }
  EXPECT_THROW(exif_orientation_transform(0), InvalidArgument);
  EXPECT_THROW(exif_orientation_transform(9), InvalidArgument);
}

TEST(CropTransformCpu, TransformedWindowWithPaddingFollowsTheContract) {
  // Every transform on a window that reaches outside the image, vs the ImageTransform formula.
  std::mt19937 gen(4);
  for (ImageLayout layout : {ImageLayout::kHWC, ImageLayout::kCHW}) {
    Img<uint8_t> in = random_image<uint8_t>(11, 14, 3, layout, gen);
    const CropWindow win{-2, 5, 9, 13};
    for (int bits = 0; bits < 8; ++bits) {
      ImageTransform t{(bits & 4) != 0, (bits & 1) != 0, (bits & 2) != 0};
      int64_t oh = t.transpose ? win.w : win.h, ow = t.transpose ? win.h : win.w;
      Img<uint8_t> out(oh, ow, 3, layout), want(oh, ow, 3, layout);
      out.poison();
      const std::vector<float> fill = {10, 20, 30};
      crop_transform_cpu<uint8_t>(in.cview(), out.view(), win, t, fill);
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          int64_t a = t.transpose ? x : y, b = t.transpose ? y : x;
          int64_t sy = win.y + (t.flip_y ? win.h - 1 - a : a);
          int64_t sx = win.x + (t.flip_x ? win.w - 1 - b : b);
          for (int64_t ch = 0; ch < 3; ++ch) {
            bool inside = sy >= 0 && sy < in.h && sx >= 0 && sx < in.w;
            want(y, x, ch) = inside ? in(sy, sx, ch) : static_cast<uint8_t>(fill[ch]);
          }
        }
      expect_equal(out, want, make_string("transform bits ", bits));
    }
  }
}

TEST(CropTransformCpu, RejectsMismatchedArguments) {
  Img<uint8_t> in(10, 10, 3, ImageLayout::kHWC);
  Img<uint8_t> out(4, 5, 3, ImageLayout::kHWC);
  const CropWindow win{1, 1, 4, 5};
  EXPECT_NO_THROW(crop_cpu<uint8_t>(in.cview(), out.view(), win));
  // Wrong output size (transposed window needs 5 x 4).
  EXPECT_THROW(crop_transform_cpu<uint8_t>(in.cview(), out.view(), win, {true, false, false}, {}),
               InvalidArgument);
  Img<uint8_t> chw(4, 5, 3, ImageLayout::kCHW);
  EXPECT_THROW(crop_cpu<uint8_t>(in.cview(), chw.view(), win), InvalidArgument);
  Img<uint8_t> two(4, 5, 2, ImageLayout::kHWC);
  EXPECT_THROW(crop_cpu<uint8_t>(in.cview(), two.view(), win), InvalidArgument);
  const std::vector<float> fill2 = {1, 2};
  try {
    crop_cpu<uint8_t>(in.cview(), out.view(), win, fill2);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("fill_values"), std::string::npos) << e.what();
  }
  EXPECT_THROW(crop_cpu<uint8_t>(in.cview(), out.view(), CropWindow{1, 1, -4, 5}), InvalidArgument);
}

}  // namespace
}  // namespace sluice
