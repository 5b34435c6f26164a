#include "sluice/kernels/resize/resample_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/kernels/resize/detail/resample_math.h"

namespace sluice::kernels {
namespace {

struct Table {
  std::vector<int32_t> first, count;
  std::vector<float> w;
  std::vector<int32_t> wf;  // fixed point
};

Table tables(const AxisResampling& a) {
  Table t;
  t.first.resize(a.out_count);
  t.count.resize(a.out_count);
  t.w.resize(static_cast<size_t>(a.out_count) * a.max_taps);
  t.wf.resize(t.w.size());
  compute_axis_coeffs(a, t.first.data(), t.count.data(), t.w.data());
  std::vector<int32_t> first2(a.out_count), count2(a.out_count);
  compute_axis_coeffs_fixed(a, first2.data(), count2.data(), t.wf.data());
  EXPECT_EQ(first2, t.first);
  EXPECT_EQ(count2, t.count);
  return t;
}

// Every table of every filter, for down- and upscales, with and without antialiasing, windows
// inside and partly outside the image: taps inside the image, within max_taps, weights summing to
// 1 (fixed point: to 2^22 within the rounding of each weight), and sum |w| < 2, which keeps the
// fixed-point accumulation of 255 * sum |w| * 2^22 below 2^31.
TEST(ResampleFilter, CoefficientsAreNormalisedAndBounded) {
  const double kWindows[][2] = {{0, 37}, {3.25, 30.5}, {-6.5, 20}, {10, 45}, {36.9, 37}};
  for (ResampleFilter f : kAllResampleFilters) {
    for (bool aa : {true, false}) {
      for (int64_t out : {1, 2, 5, 11, 37, 64, 150}) {
        for (const auto& win : kWindows) {
          SCOPED_TRACE(make_string(resample_filter_name(f), " aa=", aa, " out=", out, " window [",
                                   win[0], ", ", win[1], ")"));
          AxisResampling a = make_axis_resampling(37, win[0], win[1], out, {f, f, aa});
          Table t = tables(a);
          for (int32_t i = 0; i < a.out_count; i++) {
            ASSERT_GE(t.count[i], 1);
            ASSERT_LE(t.count[i], a.max_taps);
            ASSERT_GE(t.first[i], 0);
            ASSERT_LE(t.first[i] + t.count[i], a.in_size);
            double sum = 0, abs_sum = 0;
            int64_t fixed_sum = 0;
            for (int32_t j = 0; j < t.count[i]; j++) {
              sum += t.w[i * a.max_taps + j];
              abs_sum += std::fabs(t.w[i * a.max_taps + j]);
              fixed_sum += t.wf[i * a.max_taps + j];
            }
            EXPECT_NEAR(sum, 1.0, 1e-6) << "output " << i;
            EXPECT_LE(std::llabs(fixed_sum - (int64_t{1} << kCoeffFractionBits)), t.count[i])
                << "output " << i;
            EXPECT_LT(abs_sum, 2.0) << "output " << i;
          }
        }
      }
    }
  }
}

// At scale 1 the interpolating filters reproduce the input: output i has weight 1 on input i.
TEST(ResampleFilter, ScaleOneIsIdentity) {
  for (ResampleFilter f :
       {ResampleFilter::kNearest, ResampleFilter::kLinear, ResampleFilter::kTriangular,
        ResampleFilter::kCubic, ResampleFilter::kLanczos3}) {
    SCOPED_TRACE(resample_filter_name(f));
    AxisResampling a = make_axis_resampling(23, 0, 23, 23, {f, f, true});
    Table t = tables(a);
    for (int32_t i = 0; i < 23; i++) {
      for (int32_t j = 0; j < t.count[i]; j++) {
        const bool center = t.first[i] + j == i;
        EXPECT_EQ(t.w[i * a.max_taps + j], center ? 1.0f : 0.0f) << i << " " << j;
        EXPECT_EQ(t.wf[i * a.max_taps + j], center ? 1 << kCoeffFractionBits : 0) << i << " " << j;
      }
    }
  }
}

TEST(ResampleFilter, ReversedWindowMirrorsTheTable) {
  for (ResampleFilter f : kAllResampleFilters) {
    SCOPED_TRACE(resample_filter_name(f));
    AxisResampling fwd = make_axis_resampling(50, 3.5, 41.25, 17, {f, f, true});
    AxisResampling rev = make_axis_resampling(50, 41.25, 3.5, 17, {f, f, true});
    EXPECT_TRUE(rev.mirror);
    Table a = tables(fwd), b = tables(rev);
    for (int32_t i = 0; i < 17; i++) {
      const int32_t m = 16 - i;
      ASSERT_EQ(a.first[i], b.first[m]);
      ASSERT_EQ(a.count[i], b.count[m]);
      for (int32_t j = 0; j < a.count[i]; j++) {
        EXPECT_EQ(a.wf[i * fwd.max_taps + j], b.wf[m * rev.max_taps + j]);
      }
    }
  }
}

// A crop of the output (out_offset, out_count) has exactly the rows of the full table.
TEST(ResampleFilter, OutputRangeIsASliceOfTheFullTable) {
  for (ResampleFilter f : kAllResampleFilters) {
    for (bool mirror : {false, true}) {
      SCOPED_TRACE(make_string(resample_filter_name(f), mirror ? " mirrored" : ""));
      const double lo = mirror ? 60 : 2.5, hi = mirror ? 2.5 : 60;
      AxisResampling full = make_axis_resampling(64, lo, hi, 29, {f, f, true});
      AxisResampling part = make_axis_resampling(64, lo, hi, 29, {f, f, true}, 7, 15);
      Table a = tables(full), b = tables(part);
      for (int32_t i = 0; i < 15; i++) {
        ASSERT_EQ(a.first[i + 7], b.first[i]);
        ASSERT_EQ(a.count[i + 7], b.count[i]);
        for (int32_t j = 0; j < b.count[i]; j++) {
          EXPECT_EQ(a.w[(i + 7) * full.max_taps + j], b.w[i * part.max_taps + j]);
        }
      }
      SourceRange r = axis_source_range(part);
      for (int32_t i = 0; i < 15; i++) {
        EXPECT_GE(b.first[i], r.begin);
        EXPECT_LE(b.first[i] + b.count[i], r.end);
      }
    }
  }
}

TEST(ResampleFilter, SelectsAndWidensFilters) {
  const ResampleFilters cubic_lanczos{ResampleFilter::kLanczos3, ResampleFilter::kCubic, true};
  // Downscale by 2.5: min filter, support widened by the scale.
  AxisResampling down = make_axis_resampling(100, 0, 100, 40, cubic_lanczos);
  EXPECT_EQ(down.filter, ResampleFilter::kLanczos3);
  EXPECT_DOUBLE_EQ(down.scale, 2.5);
  EXPECT_DOUBLE_EQ(down.support, 7.5);
  EXPECT_DOUBLE_EQ(down.inv_filter_scale, 0.4);
  EXPECT_EQ(down.max_taps, 17);  // 2 ceil(7.5) + 1
  // Upscale: mag filter, nominal support.
  AxisResampling up = make_axis_resampling(100, 0, 100, 250, cubic_lanczos);
  EXPECT_EQ(up.filter, ResampleFilter::kCubic);
  EXPECT_DOUBLE_EQ(up.support, 2.0);
  EXPECT_EQ(up.max_taps, 5);
  // Without antialiasing a downscale keeps the nominal support...
  AxisResampling no_aa = make_axis_resampling(
      100, 0, 100, 40, {ResampleFilter::kLinear, ResampleFilter::kLinear, false});
  EXPECT_DOUBLE_EQ(no_aa.support, 1.0);
  EXPECT_DOUBLE_EQ(no_aa.inv_filter_scale, 1.0);
  // ...except TRIANGULAR, which is the widened LINEAR.
  AxisResampling tri = make_axis_resampling(
      100, 0, 100, 40, {ResampleFilter::kTriangular, ResampleFilter::kLinear, false});
  EXPECT_EQ(tri.filter, ResampleFilter::kLinear);
  EXPECT_DOUBLE_EQ(tri.support, 2.5);
  // Nearest neighbour: one tap, never widened.
  AxisResampling nn = make_axis_resampling(
      100, 0, 100, 40, {ResampleFilter::kNearest, ResampleFilter::kNearest, true});
  EXPECT_EQ(nn.max_taps, 1);
  // Taps never exceed the input.
  AxisResampling tiny = make_axis_resampling(3, 0, 3, 1, cubic_lanczos);
  EXPECT_EQ(tiny.max_taps, 3);
}

// The host/device polynomials against libm in extended precision (a double reference would
// carry the rounding of t * pi, up to 1e-15 near t = 3).
TEST(ResampleFilter, PolynomialsMatchLibm) {
  const long double pi = 3.141592653589793238462643383279502884L;
  for (double t = -3.0; t <= 3.0; t += 0.0078125 * 3 + 1e-9) {
    const double ref = static_cast<double>(std::sin(static_cast<long double>(t) * pi));
    EXPECT_NEAR(detail::sin_pi(t), ref, 2.5e-16) << t;
  }
  EXPECT_EQ(detail::sin_pi(2.0), 0.0);
  EXPECT_EQ(detail::sin_pi(-1.0), 0.0);
  for (double v = 0; v <= 4.0; v += 1.0 / 64) {
    const double ref = static_cast<double>(std::exp(-static_cast<long double>(v)));
    // Four squarings amplify the rounding of the series 16-fold.
    EXPECT_NEAR(detail::exp_neg_small(v) / ref, 1.0, 4e-15) << v;
  }
}

TEST(ResampleFilter, ParsesDaliNames) {
  for (ResampleFilter f : kAllResampleFilters) {
    EXPECT_EQ(parse_resample_filter(resample_filter_name(f)), f);
  }
  EXPECT_EQ(parse_resample_filter("INTERP_LANCZOS3"), ResampleFilter::kLanczos3);
  EXPECT_EQ(parse_resample_filter("interp_nn"), ResampleFilter::kNearest);
  EXPECT_EQ(parse_resample_filter("cubic"), ResampleFilter::kCubic);
  EXPECT_THROW(parse_resample_filter("BILINEAR"), InvalidArgument);
}

TEST(ResampleFilter, RejectsBadAxes) {
  const ResampleFilters f;
  EXPECT_THROW(make_axis_resampling(0, 0, 1, 5, f), InvalidArgument);
  EXPECT_THROW(make_axis_resampling(10, 0, 10, 0, f), InvalidArgument);
  EXPECT_THROW(make_axis_resampling(10, 0, 10, int64_t{1} << 31, f), InvalidArgument);
  EXPECT_THROW(make_axis_resampling(10, 4, 4, 5, f), InvalidArgument);
  EXPECT_THROW(make_axis_resampling(10, 0, NAN, 5, f), InvalidArgument);
  EXPECT_THROW(make_axis_resampling(10, 0, 10, 5, f, 3, 3), InvalidArgument);
  EXPECT_THROW(make_axis_resampling(10, 0, 10, 5, f, -1), InvalidArgument);
  ResampleFilters bad;
  bad.min_filter = static_cast<ResampleFilter>(17);
  try {
    make_axis_resampling(10, 0, 10, 5, bad);
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("min_filter"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sluice::kernels
