#include "sluice/kernels/resize/resize_cpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "sluice/core/error.h"

namespace sluice::kernels {
namespace {

constexpr ResampleFilter kInterpolating[] = {ResampleFilter::kNearest, ResampleFilter::kLinear,
                                             ResampleFilter::kTriangular, ResampleFilter::kCubic,
                                             ResampleFilter::kLanczos3};

// An image with its storage, uint8 or float.
struct Image {
  DType type;
  int64_t h, w, c;
  std::vector<uint8_t> u8;
  std::vector<float> f32;

  Image(DType t, int64_t h_, int64_t w_, int64_t c_) : type(t), h(h_), w(w_), c(c_) {
    if (t == DType::kUInt8) {
      u8.assign(static_cast<size_t>(h * w * c), 0xCD);  // poison
    } else {
      f32.assign(static_cast<size_t>(h * w * c), std::nanf(""));
    }
  }
  void* data() { return type == DType::kUInt8 ? static_cast<void*>(u8.data()) : f32.data(); }
  HwcImage view() { return {data(), type, h, w, c}; }
  ConstHwcImage cview() { return view(); }
  double at(int64_t y, int64_t x, int64_t ch) const {
    const size_t i = static_cast<size_t>((y * w + x) * c + ch);
    return type == DType::kUInt8 ? u8[i] : f32[i];
  }
};

Image random_image(DType t, int64_t h, int64_t w, int64_t c, uint32_t seed) {
  Image im(t, h, w, c);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(1, 255);
  std::uniform_real_distribution<float> real(-20.f, 300.f);
  for (size_t i = 0; i < im.u8.size(); i++) im.u8[i] = static_cast<uint8_t>(byte(rng));
  for (size_t i = 0; i < im.f32.size(); i++) im.f32[i] = real(rng);
  return im;
}

ResizeSampleParams params_for(int64_t out_h, int64_t out_w, double y0, double x0, double y1,
                              double x1, ResampleFilter f, bool antialias = true) {
  ResizeSampleParams p;
  p.geometry = {out_h, out_w, y0, x0, y1, x1};
  p.filters = {f, f, antialias};
  return p;
}

Image run_resize(Image& in, DType out_type, const ResizeSampleParams& p) {
  Image out(out_type, p.geometry.out_h, p.geometry.out_w, in.c);
  std::vector<std::byte> scratch(resize_cpu_scratch_size(in.cview(), out.view(), p));
  resize_cpu(in.cview(), out.view(), p, scratch);
  return out;
}

std::string where(int64_t y, int64_t x, int64_t c) {
  return make_string("at (", y, ", ", x, ") channel ", c);
}

TEST(ResizeCpu, IdentityIsExact) {
  for (DType t : {DType::kUInt8, DType::kFloat32}) {
    for (int64_t c : {1, 3, 5}) {
      Image in = random_image(t, 13, 17, c, 7);
      for (ResampleFilter f : kInterpolating) {
        SCOPED_TRACE(make_string(dtype_name(t), " C=", c, " ", resample_filter_name(f)));
        Image out = run_resize(in, t, params_for(13, 17, 0, 0, 13, 17, f));
        EXPECT_EQ(out.u8, in.u8);
        for (size_t i = 0; i < out.f32.size(); i++) ASSERT_EQ(out.f32[i], in.f32[i]) << i;
      }
    }
  }
}

// A reversed window along an axis gives the forward result mirrored along it, exactly.
TEST(ResizeCpu, ReversedWindowMirrors) {
  for (DType t : {DType::kUInt8, DType::kFloat32}) {
    Image in = random_image(t, 40, 52, 3, 11);
    for (ResampleFilter f : kAllResampleFilters) {
      for (auto [oh, ow] : {std::pair<int64_t, int64_t>{17, 23}, {71, 90}}) {
        SCOPED_TRACE(make_string(dtype_name(t), " ", resample_filter_name(f), " ", oh, "x", ow));
        Image fwd = run_resize(in, t, params_for(oh, ow, 2.5, 1.25, 38, 50.5, f));
        Image hflip = run_resize(in, t, params_for(oh, ow, 2.5, 50.5, 38, 1.25, f));
        Image vflip = run_resize(in, t, params_for(oh, ow, 38, 1.25, 2.5, 50.5, f));
        for (int64_t y = 0; y < oh; y++) {
          for (int64_t x = 0; x < ow; x++) {
            for (int64_t c = 0; c < 3; c++) {
              ASSERT_EQ(hflip.at(y, ow - 1 - x, c), fwd.at(y, x, c)) << where(y, x, c);
              ASSERT_EQ(vflip.at(oh - 1 - y, x, c), fwd.at(y, x, c)) << where(y, x, c);
            }
          }
        }
      }
    }
  }
}

// Normalised coefficients keep a constant image constant: exactly for uint8 (fixed point) and to
// float rounding for float, for every filter, down- and upscaling, windows past the edges.
TEST(ResizeCpu, ConstantImageStaysConstant) {
  const double kWindows[][4] = {{0, 0, 31, 45}, {-3.5, 4.25, 35, 20}, {10, -6, 12.5, 51}};
  for (DType t : {DType::kUInt8, DType::kFloat32}) {
    Image in(t, 31, 45, 2);
    for (size_t i = 0; i < in.u8.size(); i++) in.u8[i] = i % 2 ? 201 : 7;
    for (size_t i = 0; i < in.f32.size(); i++) in.f32[i] = i % 2 ? 201.5f : -7.25f;
    for (ResampleFilter f : kAllResampleFilters) {
      for (bool aa : {true, false}) {
        for (const auto& win : kWindows) {
          for (auto [oh, ow] : {std::pair<int64_t, int64_t>{4, 9}, {66, 97}}) {
            SCOPED_TRACE(make_string(dtype_name(t), " ", resample_filter_name(f), " aa=", aa, " ",
                                     oh, "x", ow, " window y[", win[0], ", ", win[2], ")"));
            Image out =
                run_resize(in, t, params_for(oh, ow, win[0], win[1], win[2], win[3], f, aa));
            for (int64_t y = 0; y < oh; y++) {
              for (int64_t x = 0; x < ow; x++) {
                for (int64_t c = 0; c < 2; c++) {
                  const double want = in.at(0, 0, c);
                  if (t == DType::kUInt8) {
                    ASSERT_EQ(out.at(y, x, c), want) << where(y, x, c);
                  } else {
                    ASSERT_NEAR(out.at(y, x, c), want, 2e-5 * std::fabs(want)) << where(y, x, c);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

// The type combinations share coefficients: uint8 -> float equals float -> float on the same
// values, and float -> uint8 is that result rounded (ties to even) and saturated.
TEST(ResizeCpu, TypeCombinationsAgree) {
  Image in8 = random_image(DType::kUInt8, 29, 41, 3, 5);
  Image inf(DType::kFloat32, 29, 41, 3);
  for (size_t i = 0; i < in8.u8.size(); i++) inf.f32[i] = in8.u8[i];
  for (ResampleFilter f : kAllResampleFilters) {
    SCOPED_TRACE(resample_filter_name(f));
    ResizeSampleParams p = params_for(19, 60, 1.5, 0, 27, 41, f);
    Image a = run_resize(in8, DType::kFloat32, p);
    Image b = run_resize(inf, DType::kFloat32, p);
    Image c = run_resize(inf, DType::kUInt8, p);
    for (size_t i = 0; i < a.f32.size(); i++) {
      ASSERT_EQ(a.f32[i], b.f32[i]) << i;
      const float v = std::min(255.f, std::max(0.f, b.f32[i]));
      ASSERT_EQ(c.u8[i], static_cast<uint8_t>(std::nearbyint(v))) << i << " " << b.f32[i];
    }
  }
}

// Any channel count: a 5-channel image equals its channels resized one by one, and 1..4
// channels (specialised loops) equal the generic loop on the same data.
TEST(ResizeCpu, ChannelsAreIndependent) {
  for (DType t : {DType::kUInt8, DType::kFloat32}) {
    Image in = random_image(t, 21, 26, 5, 3);
    for (ResampleFilter f : {ResampleFilter::kLinear, ResampleFilter::kLanczos3}) {
      ResizeSampleParams p = params_for(9, 40, 0, 0, 21, 26, f);
      Image all = run_resize(in, t, p);
      for (int64_t c = 0; c < 5; c++) {
        Image plane(t, 21, 26, 1);
        for (int64_t i = 0; i < 21 * 26; i++) {
          if (t == DType::kUInt8) plane.u8[i] = in.u8[i * 5 + c];
          if (t == DType::kFloat32) plane.f32[i] = in.f32[i * 5 + c];
        }
        Image one = run_resize(plane, t, p);
        for (int64_t y = 0; y < 9; y++) {
          for (int64_t x = 0; x < 40; x++) {
            ASSERT_EQ(one.at(y, x, 0), all.at(y, x, c)) << where(y, x, c);
          }
        }
      }
    }
  }
}

// Row strides: a padded input and output give the dense result, and padding is not touched.
TEST(ResizeCpu, HonoursRowStrides) {
  Image in = random_image(DType::kUInt8, 20, 30, 3, 9);
  ResizeSampleParams p = params_for(11, 13, 0, 0, 20, 30, ResampleFilter::kCubic);
  Image dense = run_resize(in, DType::kUInt8, p);
  const int64_t in_stride = 30 * 3 + 7, out_stride = 13 * 3 + 5;
  std::vector<uint8_t> padded_in(20 * in_stride, 0);
  for (int64_t y = 0; y < 20; y++) {
    std::memcpy(&padded_in[y * in_stride], &in.u8[y * 90], 90);
  }
  std::vector<uint8_t> padded_out(11 * out_stride, 0xEE);
  ConstHwcImage src(padded_in.data(), DType::kUInt8, 20, 30, 3, in_stride);
  HwcImage dst{padded_out.data(), DType::kUInt8, 11, 13, 3, out_stride};
  std::vector<std::byte> scratch(resize_cpu_scratch_size(src, dst, p));
  resize_cpu(src, dst, p, scratch);
  for (int64_t y = 0; y < 11; y++) {
    for (int64_t i = 0; i < out_stride; i++) {
      if (i < 39) {
        ASSERT_EQ(padded_out[y * out_stride + i], dense.u8[y * 39 + i]) << y << " " << i;
      } else {
        ASSERT_EQ(padded_out[y * out_stride + i], 0xEE) << "padding written at " << y;
      }
    }
  }
}

// Scratch is caller memory: the size query is enough, a reused buffer gives the same result and
// a short one is refused.
TEST(ResizeCpu, ScratchIsReusable) {
  Image in = random_image(DType::kUInt8, 50, 64, 3, 1);
  ResizeSampleParams big = params_for(25, 31, 0, 0, 50, 64, ResampleFilter::kLanczos3);
  ResizeSampleParams small = params_for(7, 9, 0, 0, 50, 64, ResampleFilter::kLinear);
  Image out_big(DType::kUInt8, 25, 31, 3), out_small(DType::kUInt8, 7, 9, 3);
  const size_t need_big = resize_cpu_scratch_size(in.cview(), out_big.view(), big);
  const size_t need_small = resize_cpu_scratch_size(in.cview(), out_small.view(), small);
  EXPECT_GT(need_big, need_small);
  std::vector<std::byte> scratch(need_big, std::byte{0x77});
  resize_cpu(in.cview(), out_big.view(), big, scratch);
  resize_cpu(in.cview(), out_small.view(), small, scratch);
  EXPECT_EQ(out_small.u8, run_resize(in, DType::kUInt8, small).u8);
  resize_cpu(in.cview(), out_big.view(), big, scratch);
  EXPECT_EQ(out_big.u8, run_resize(in, DType::kUInt8, big).u8);
  std::vector<std::byte> short_scratch(need_small - 1);
  EXPECT_THROW(resize_cpu(in.cview(), out_small.view(), small, short_scratch), InvalidArgument);
}

void expect_invalid(const ConstHwcImage& in, const HwcImage& out, const ResizeSampleParams& p,
                    const std::string& fragment) {
  std::vector<std::byte> scratch(1 << 20);
  try {
    resize_cpu(in, out, p, scratch);
    ADD_FAILURE() << "expected InvalidArgument mentioning \"" << fragment << "\"";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(ResizeCpu, RejectsBadArguments) {
  Image in = random_image(DType::kUInt8, 10, 10, 3, 2);
  Image out(DType::kUInt8, 5, 5, 3);
  const ResizeSampleParams p = params_for(5, 5, 0, 0, 10, 10, ResampleFilter::kLinear);
  HwcImage bad = out.view();
  bad.type = DType::kInt16;
  expect_invalid(in.cview(), bad, p, "output type");
  bad = out.view();
  bad.channels = 2;
  expect_invalid(in.cview(), bad, p, "channel");
  bad = out.view();
  bad.width = 6;
  expect_invalid(in.cview(), bad, p, "geometry");
  bad = out.view();
  bad.data = nullptr;
  expect_invalid(in.cview(), bad, p, "null output");
  ConstHwcImage src = in.cview();
  src.row_stride = 20;
  expect_invalid(src, out.view(), p, "row_stride");
  src = in.cview();
  src.height = 0;
  expect_invalid(src, out.view(), p, "empty");
  expect_invalid(in.cview(), out.view(), params_for(5, 5, 3, 0, 3, 10, ResampleFilter::kLinear),
                 "y axis");
  ResizeSampleParams bad_filter = p;
  bad_filter.filters.mag_filter = static_cast<ResampleFilter>(99);
  expect_invalid(in.cview(), out.view(), bad_filter, "mag_filter");
  // An empty output is valid and touches nothing.
  Image none(DType::kUInt8, 0, 5, 3);
  std::vector<std::byte> scratch;
  resize_cpu(in.cview(), none.view(), params_for(0, 5, 0, 0, 10, 10, ResampleFilter::kLinear),
             scratch);
}

}  // namespace
}  // namespace sluice::kernels
