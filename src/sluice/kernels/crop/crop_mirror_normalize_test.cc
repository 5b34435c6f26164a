#include "sluice/kernels/crop/crop_mirror_normalize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/kernels/crop/crop_test_util.h"

namespace sluice {
namespace {

using crop_test::random_values;
using crop_test::ref_convert;
using crop_test::same_bits;

struct Case {
  std::vector<float> mean, stddev, fill;
  float scale, shift;
};

// The documented per-element formula, written out here: (x - mean) fused-multiplied by
// scale / std (computed in double, rounded to float) plus shift, then the output conversion.
template <typename Out>
Out ref_element(float x, float mean, float sd, float scale, float shift) {
  const float k = static_cast<float>(static_cast<double>(scale) / static_cast<double>(sd));
  return ref_convert<Out>(std::fma(x - mean, k, shift));
}

float pick(const std::vector<float>& v, int c) {
  return v.size() == 1 ? v[0] : v[c];
}

template <typename In, typename Out>
void check_cmn(int64_t H, int64_t W, int C, const CropWindow& window, bool mirror,
               ImageLayout out_layout, bool pad, const Case& cs, std::mt19937& gen) {
  const std::vector<In> in = random_values<In>(static_cast<size_t>(H * W * C), gen);
  CmnParams p;
  p.out_type = dtype_of<Out>;
  p.out_layout = out_layout;
  p.pad_output = pad;
  p.mean = cs.mean;
  p.stddev = cs.stddev;
  p.scale = cs.scale;
  p.shift = cs.shift;
  const int OC = pad ? (C <= 1 ? 1 : C <= 2 ? 2 : C <= 4 ? 4 : 8) : C;
  // Per-channel fill values are one per output channel: the added channels get their own.
  std::vector<float> fill = cs.fill;
  for (int c = static_cast<int>(fill.size()); fill.size() > 1 && c < OC; ++c) {
    fill.push_back(11.0f * c - 20.5f);
  }
  p.fill_values = fill;
  const CmnChannelTable table = make_cmn_channel_table(p, C);
  ASSERT_EQ(table.out_channels, OC);
  const Shape shape = cmn_output_shape(window, table);
  const Shape want_shape = out_layout == ImageLayout::kCHW ? Shape{OC, window.h, window.w}
                                                           : Shape{window.h, window.w, OC};
  ASSERT_EQ(shape, want_shape);
  std::vector<Out> out(static_cast<size_t>(volume(shape)));
  std::memset(static_cast<void*>(out.data()), 0xAB, out.size() * sizeof(Out));
  crop_mirror_normalize_cpu<In>(ImageView<const In>{in.data(), H, W, C, ImageLayout::kHWC},
                                out.data(), window, mirror, table);
  for (int64_t oy = 0; oy < window.h; ++oy) {
    for (int64_t ox = 0; ox < window.w; ++ox) {
      const int64_t sy = window.y + oy;
      const int64_t sx = window.x + (mirror ? window.w - 1 - ox : ox);
      const bool inside = sy >= 0 && sy < H && sx >= 0 && sx < W;
      for (int c = 0; c < OC; ++c) {
        Out want;
        if (c >= C || !inside) {  // added channels hold their fill value everywhere
          want = ref_convert<Out>(pick(fill, c));
        } else {
          const float x = static_cast<float>(crop_test::as_double(in[(sy * W + sx) * C + c]));
          want = ref_element<Out>(x, pick(cs.mean, c), pick(cs.stddev, c), cs.scale, cs.shift);
          if constexpr (std::is_same_v<Out, float>) {
            // Also against the formula in double, to catch a wrong formula.
            double d = (x - static_cast<double>(pick(cs.mean, c))) / pick(cs.stddev, c) * cs.scale +
                       cs.shift;
            ASSERT_NEAR(want, d, 1e-5 * (std::fabs(d) + 1));
          }
        }
        const size_t idx = static_cast<size_t>(out_layout == ImageLayout::kCHW
                                                   ? (c * window.h + oy) * window.w + ox
                                                   : (oy * window.w + ox) * OC + c);
        ASSERT_TRUE(same_bits(out[idx], want))
            << "y=" << oy << " x=" << ox << " c=" << c << " got " << crop_test::as_double(out[idx])
            << " want " << crop_test::as_double(want) << " inside=" << inside << " window "
            << to_string(window) << " mirror " << mirror << " layout "
            << image_layout_name(out_layout) << " pad " << pad;
      }
    }
  }
}

template <typename In, typename Out>
void sweep(std::mt19937& gen) {
  const Case cases[] = {
      {{0.485f * 255, 0.456f * 255, 0.406f * 255},
       {0.229f * 255, 0.224f * 255, 0.225f * 255},
       {0.0f},
       1.0f,
       0.0f},
      {{128.0f}, {64.0f}, {7.5f, -3.0f, 250.0f}, 64.0f, 128.0f},  // large range: clamps
      {{0.5f * 255}, {0.225f * 255}, {1.0f}, 50.0f, 5.0f},
      {{-3.0f, 10.0f, 0.0f}, {2.0f}, {-500.0f}, 2.0f, -100.0f},
  };
  const CropWindow windows[] = {{3, 5, 10, 12}, {-2, -3, 8, 30}, {0, 0, 17, 23}, {15, 20, 6, 6}};
  for (const Case& cs : cases) {
    for (const CropWindow& win : windows) {
      for (bool mirror : {false, true}) {
        for (ImageLayout layout : {ImageLayout::kHWC, ImageLayout::kCHW}) {
          for (bool pad : {false, true}) {
            check_cmn<In, Out>(17, 23, 3, win, mirror, layout, pad, cs, gen);
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
      }
    }
  }
  // Other channel counts (per-channel values only where they fit).
  for (int C : {1, 2, 4}) {
    Case cs{{100.0f}, {30.0f}, {5.0f}, 1.5f, 2.0f};
    check_cmn<In, Out>(9, 13, C, {-1, 2, 7, 12}, true, ImageLayout::kCHW, true, cs, gen);
    check_cmn<In, Out>(9, 13, C, {1, -2, 7, 12}, false, ImageLayout::kHWC, true, cs, gen);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

template <typename In>
void sweep_outputs(std::mt19937& gen) {
  sweep<In, float>(gen);
  sweep<In, float16>(gen);
  sweep<In, uint8_t>(gen);
  sweep<In, int8_t>(gen);
}

TEST(CropMirrorNormalizeCpu, MatchesPerElementFormulaUint8) {
  std::mt19937 gen(10);
  sweep_outputs<uint8_t>(gen);
}

TEST(CropMirrorNormalizeCpu, MatchesPerElementFormulaInt16Uint16Float) {
  std::mt19937 gen(11);
  sweep_outputs<int16_t>(gen);
  sweep_outputs<uint16_t>(gen);
  sweep_outputs<float>(gen);
}

TEST(CropMirrorNormalizeCpu, IntegerOutputsRoundHalvesToEvenAndSaturate) {
  const uint8_t in[] = {1, 3, 5, 7, 255, 0};
  auto run = [&](DType t, float scale, float shift, void* out) {
    CmnParams p;
    p.out_type = t;
    p.out_layout = ImageLayout::kHWC;
    p.stddev = {2.0f};
    p.scale = scale;
    p.shift = shift;
    crop_mirror_normalize_cpu<uint8_t>(ImageView<const uint8_t>{in, 1, 6, 1, ImageLayout::kHWC},
                                       out, CropWindow{0, 0, 1, 6}, false,
                                       make_cmn_channel_table(p, 1));
  };
  uint8_t u[6];
  run(DType::kUInt8, 1.0f, 0.0f, u);  // 0.5 1.5 2.5 3.5 127.5 0
  EXPECT_EQ(std::vector<uint8_t>(u, u + 6), (std::vector<uint8_t>{0, 2, 2, 4, 128, 0}));
  run(DType::kUInt8, 4.0f, -10.0f, u);  // -8 -4 0 4 500 -10
  EXPECT_EQ(std::vector<uint8_t>(u, u + 6), (std::vector<uint8_t>{0, 0, 0, 4, 255, 0}));
  int8_t s[6];
  run(DType::kInt8, 1.0f, -10.0f, s);  // -9.5 -8.5 -7.5 -6.5 117.5 -10
  EXPECT_EQ(std::vector<int8_t>(s, s + 6), (std::vector<int8_t>{-10, -8, -8, -6, 118, -10}));
  run(DType::kInt8, 2.0f, 0.0f, s);  // 1 3 5 7 255 0
  EXPECT_EQ(std::vector<int8_t>(s, s + 6), (std::vector<int8_t>{1, 3, 5, 7, 127, 0}));
  float16 h[6];
  run(DType::kFloat16, 1.0f / 3.0f, 0.0f, h);
  for (int i = 0; i < 6; ++i) {
    const float k = static_cast<float>(1.0 / 3.0 / 2.0);
    EXPECT_EQ(h[i].bits, crop_test::ref_half_bits(std::fma(float(in[i]), k, 0.0f))) << i;
  }
}

TEST(CropMirrorNormalizeCpu, RejectsBadArgumentsNamingThem) {
  auto expect_error = [](const CmnParams& p, int channels, const char* needle) {
    try {
      make_cmn_channel_table(p, channels);
      ADD_FAILURE() << "expected InvalidArgument mentioning " << needle;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  CmnParams p;
  p.mean = {1, 2};
  expect_error(p, 3, "mean");
  p = {};
  p.stddev = {1, 0, 1};
  expect_error(p, 3, "std");
  p = {};
  p.stddev = {};
  expect_error(p, 3, "std");
  p = {};
  p.fill_values = {1, 2, 3, 4};
  expect_error(p, 3, "fill_values");
  p.pad_output = true;  // one per output channel: 4
  EXPECT_EQ(make_cmn_channel_table(p, 3).fill, (std::vector<float>{1, 2, 3, 4}));
  p.fill_values = {1, 2, 3};
  expect_error(p, 3, "one per output channel (4 with pad_output), got 3");
  p.fill_values = {5};
  EXPECT_EQ(make_cmn_channel_table(p, 3).fill, (std::vector<float>{5, 5, 5, 5}));
  p.mean = {1, 2, 3, 4};  // mean and std: per input or per output channel
  p.stddev = {1, 2, 4, 0};
  const CmnChannelTable padded = make_cmn_channel_table(p, 3);
  EXPECT_EQ(padded.mean, (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(padded.k, (std::vector<float>{1, 0.5f, 0.25f}));
  p.mean = {1, 2};
  expect_error(p, 3, "one per channel (3, or 4 with pad_output), got 2");
  p = {};
  p.out_type = DType::kInt16;
  expect_error(p, 3, "INT16");
  p = {};
  p.scale = INFINITY;
  expect_error(p, 3, "scale");
  p = {};
  p.stddev = {1e-40f};
  p.scale = 1e30f;
  expect_error(p, 1, "overflows");
  expect_error(CmnParams{}, 0, "channel");

  const CmnChannelTable t = make_cmn_channel_table(CmnParams{}, 3);
  std::vector<uint8_t> img(4 * 4 * 3, 1);
  std::vector<float> out(4 * 4 * 4);
  EXPECT_THROW(crop_mirror_normalize_cpu<uint8_t>(
                   ImageView<const uint8_t>{img.data(), 4, 4, 3, ImageLayout::kCHW}, out.data(),
                   {0, 0, 2, 2}, false, t),
               InvalidArgument);
  EXPECT_THROW(crop_mirror_normalize_cpu<uint8_t>(
                   ImageView<const uint8_t>{img.data(), 4, 4, 4, ImageLayout::kHWC}, out.data(),
                   {0, 0, 2, 2}, false, t),
               InvalidArgument);
}

}  // namespace
}  // namespace sluice
