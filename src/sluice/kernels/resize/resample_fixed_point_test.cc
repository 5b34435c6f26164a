// The vectorised uint8 kernels (every instruction set this CPU runs) against the scalar reference
// loops, bit for bit: random images and windows of many shapes, 1..4 channels, every filter for
// min and mag independently, with and without antialiasing, mirrored windows, windows past the
// edges, padded strides; plus outputs guarded against stray writes.

#include "sluice/kernels/resize/detail/resample_fixed_point.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/kernels/resize/detail/resize_cpu_reference.h"
#include "sluice/kernels/resize/resize_cpu.h"

namespace sluice::kernels {
namespace {

constexpr uint8_t kRowPoison = 0xA5;
constexpr int64_t kOutPad = 5;  // poisoned bytes after each output row

struct Case {
  int64_t in_h, in_w, c;
  int64_t in_pad;  // elements of row padding of the input
  ResizeSampleParams p;
};

std::string describe(const Case& k) {
  const ResizeGeometry& g = k.p.geometry;
  return make_string("in ", k.in_h, "x", k.in_w, "x", k.c, " (+", k.in_pad, ") -> ", g.out_h, "x",
                     g.out_w, " window y[", g.src_y0, ", ", g.src_y1, ") x[", g.src_x0, ", ",
                     g.src_x1, ") min ", resample_filter_name(k.p.filters.min_filter), " mag ",
                     resample_filter_name(k.p.filters.mag_filter), " antialias ",
                     k.p.filters.antialias);
}

// The input exactly as large as its rows need (no slack after the last row), so that a read past
// a row's end shows under valgrind or a sanitizer.
std::vector<uint8_t> random_input(const Case& k, std::mt19937& rng) {
  const int64_t stride = k.in_w * k.c + k.in_pad;
  std::vector<uint8_t> in(static_cast<size_t>((k.in_h - 1) * stride + k.in_w * k.c));
  // Mostly extremes and random values: saturation, and ties of the rounding, get exercised.
  std::uniform_int_distribution<int> kind(0, 3), byte(0, 255);
  for (auto& v : in) {
    const int t = kind(rng);
    v = static_cast<uint8_t>(t == 0 ? 0 : (t == 1 ? 255 : byte(rng)));
  }
  return in;
}

// Runs `fn(src, dst)` on a poisoned, padded output; returns the output rows (without padding)
// and checks the padding.
template <typename Fn>
std::vector<uint8_t> run_guarded(const Case& k, const std::vector<uint8_t>& in, Fn fn) {
  const ResizeGeometry& g = k.p.geometry;
  const int64_t row = g.out_w * k.c, stride = row + kOutPad;
  std::vector<uint8_t> out(static_cast<size_t>(g.out_h * stride), kRowPoison);
  ConstHwcImage src(in.data(), DType::kUInt8, k.in_h, k.in_w, k.c, k.in_w * k.c + k.in_pad);
  HwcImage dst{out.data(), DType::kUInt8, g.out_h, g.out_w, k.c, stride};
  fn(src, dst);
  std::vector<uint8_t> dense;
  for (int64_t y = 0; y < g.out_h; y++) {
    dense.insert(dense.end(), out.begin() + y * stride, out.begin() + y * stride + row);
    for (int64_t i = row; i < stride; i++) {
      EXPECT_EQ(out[y * stride + i], kRowPoison) << "padding of output row " << y << " written";
    }
  }
  return dense;
}

std::vector<uint8_t> reference(const Case& k, const std::vector<uint8_t>& in) {
  return run_guarded(k, in, [&](const ConstHwcImage& src, const HwcImage& dst) {
    std::vector<std::byte> scratch(detail::resize_cpu_reference_scratch_size(src, dst, k.p));
    detail::resize_cpu_reference(src, dst, k.p, scratch);
  });
}

std::vector<uint8_t> vectorised(const Case& k, const std::vector<uint8_t>& in,
                                detail::FixedPointIsa isa) {
  return run_guarded(k, in, [&](const ConstHwcImage& src, const HwcImage& dst) {
    const ResizeGeometry& g = k.p.geometry;
    detail::FixedPointJob job;
    job.in = static_cast<const uint8_t*>(src.data);
    job.in_stride = src.row_stride;
    job.in_width = src.width;
    job.out = static_cast<uint8_t*>(dst.data);
    job.out_stride = dst.row_stride;
    job.channels = k.c;
    job.h = make_axis_resampling(k.in_w, g.src_x0, g.src_x1, g.out_w, k.p.filters);
    job.v = make_axis_resampling(k.in_h, g.src_y0, g.src_y1, g.out_h, k.p.filters);
    job.rows = axis_source_range(job.v);
    // Poisoned scratch, aligned to 64 bytes as resize_cpu aligns it.
    std::vector<std::byte> scratch(detail::fixed_point_scratch_bytes(job, isa) + 64,
                                   std::byte{0xCC});
    auto addr = reinterpret_cast<uintptr_t>(scratch.data());
    detail::resample_fixed_point(job, isa, scratch.data() + (64 - addr % 64) % 64);
  });
}

std::vector<detail::FixedPointIsa> isas() {
  std::vector<detail::FixedPointIsa> v;
  for (auto isa : {detail::FixedPointIsa::kSse2, detail::FixedPointIsa::kAvx2}) {
    if (detail::fixed_point_isa_available(isa)) v.push_back(isa);
  }
  return v;
}

void expect_equal(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, const Case& k,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); i++) {
    if (got[i] != want[i]) {
      const int64_t w = k.p.geometry.out_w;
      const auto e = static_cast<int64_t>(i);
      FAIL() << what << ": " << describe(k) << ": first difference at (y " << e / (w * k.c)
             << ", x " << (e / k.c) % w << ", c " << e % k.c << "): got " << int{got[i]}
             << ", want " << int{want[i]};
    }
  }
}

void check(const Case& k, std::mt19937& rng) {
  const std::vector<uint8_t> in = random_input(k, rng);
  const std::vector<uint8_t> want = reference(k, in);
  if (detail::fixed_point_resampler_supports(k.c)) {
    for (detail::FixedPointIsa isa : isas()) {
      expect_equal(vectorised(k, in, isa), want, k,
                   isa == detail::FixedPointIsa::kAvx2 ? "AVX2" : "SSE2");
    }
  }
  // And resize_cpu itself, which dispatches to them.
  expect_equal(run_guarded(k, in,
                           [&](const ConstHwcImage& src, const HwcImage& dst) {
                             std::vector<std::byte> scratch(resize_cpu_scratch_size(src, dst, k.p));
                             resize_cpu(src, dst, k.p, scratch);
                           }),
               want, k, "resize_cpu");
}

TEST(ResampleFixedPoint, TypicalShapesEqualReference) {
  // Random-resized-crop-like windows of 150x150 .. 600x500 to 224x224 (down and up), every
  // filter, 1..4 channels.
  std::mt19937 rng(1234);
  auto real = [&rng](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  for (int64_t c = 1; c <= 4; c++) {
    for (ResampleFilter f : kAllResampleFilters) {
      for (auto [h, w] :
           {std::pair<int64_t, int64_t>{150, 150}, {375, 500}, {500, 600}, {181, 97}}) {
        Case k{h, w, c, 0, {}};
        const double y0 = real(0, h * 0.2), x0 = real(0, w * 0.2);
        k.p.geometry = {224, 224, y0, x0, real(y0 + 1, h), real(x0 + 1, w)};
        k.p.filters = {f, f, true};
        SCOPED_TRACE(describe(k));
        check(k, rng);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(ResampleFixedPoint, RandomShapesEqualReference) {
  std::mt19937 rng(42);
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  auto real = [&rng](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  // Small extents too: rows shorter than one vector, single pixels, one row or column.
  const int64_t kExtents[] = {1, 2, 3, 4, 5, 7, 8, 11, 16, 17, 31, 33, 64, 100, 257};
  for (int i = 0; i < 1500; i++) {
    Case k{};
    k.c = 1 + i % 4;
    if (i % 3 == 0) {
      k.in_h = kExtents[uniform(0, std::size(kExtents) - 1)];
      k.in_w = kExtents[uniform(0, std::size(kExtents) - 1)];
    } else {
      k.in_h = uniform(1, 300);
      k.in_w = uniform(1, 300);
    }
    k.in_pad = uniform(0, 1) ? 0 : uniform(1, 9);
    const int64_t out_h = i % 5 == 0 ? kExtents[uniform(0, 9)] : uniform(1, 320);
    const int64_t out_w = i % 7 == 0 ? kExtents[uniform(0, 9)] : uniform(1, 320);
    ResizeGeometry& g = k.p.geometry;
    switch (i % 4) {
      case 0:  // whole image
        g = {out_h, out_w, 0, 0, static_cast<double>(k.in_h), static_cast<double>(k.in_w)};
        break;
      case 1: {  // a window inside the image
        const double h = real(0.05, 1.0) * k.in_h, w = real(0.05, 1.0) * k.in_w;
        const double y0 = real(0, k.in_h - h), x0 = real(0, k.in_w - w);
        g = {out_h, out_w, y0, x0, y0 + h, x0 + w};
        break;
      }
      case 2: {  // mirrored along one or both axes
        g = {out_h, out_w, 0, 0, static_cast<double>(k.in_h), static_cast<double>(k.in_w)};
        if (uniform(0, 1)) std::swap(g.src_x0, g.src_x1);
        if (uniform(0, 1)) std::swap(g.src_y0, g.src_y1);
        break;
      }
      default:  // partly outside the image
        g = {out_h, out_w, real(-4, 1), real(-5, 1), k.in_h + real(-1, 3), k.in_w + real(-1, 6)};
        break;
    }
    k.p.filters = {kAllResampleFilters[uniform(0, 5)], kAllResampleFilters[uniform(0, 5)],
                   uniform(0, 3) != 0};
    SCOPED_TRACE(describe(k));
    check(k, rng);
    if (HasFatalFailure()) return;
  }
}

// Many taps per pixel (large downscales, wide filters): long tap loops, tail copies that hold
// whole rows, and sums near the fixed-point limits.
TEST(ResampleFixedPoint, LargeDownscalesEqualReference) {
  std::mt19937 rng(7);
  for (int64_t c = 1; c <= 4; c++) {
    for (ResampleFilter f : {ResampleFilter::kLinear, ResampleFilter::kCubic,
                             ResampleFilter::kLanczos3, ResampleFilter::kGaussian}) {
      for (auto [in_h, in_w, out_h, out_w] : {std::array<int64_t, 4>{40, 1200, 3, 5},
                                              {700, 90, 2, 1},
                                              {333, 333, 11, 13},
                                              {64, 64, 1, 1}}) {
        Case k{in_h, in_w, c, 3, {}};
        k.p.geometry = {out_h, out_w, 0, 0, static_cast<double>(in_h), static_cast<double>(in_w)};
        k.p.filters = {f, f, true};
        SCOPED_TRACE(describe(k));
        check(k, rng);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(ResampleFixedPoint, SupportsOneToFourChannels) {
  EXPECT_TRUE(detail::fixed_point_isa_available(detail::fixed_point_best_isa()) ||
              !detail::fixed_point_resampler_supports(3));
  EXPECT_FALSE(detail::fixed_point_resampler_supports(5));
  EXPECT_FALSE(detail::fixed_point_resampler_supports(0));
}

}  // namespace
}  // namespace sluice::kernels
