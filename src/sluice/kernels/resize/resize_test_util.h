#pragma once
// Test helpers shared by resize_gpu_emulation_test.cc (CPU) and resize_gpu_test.cu (GPU): random
// batches of samples with mixed sizes, windows and filters, their CPU reference outputs, and
// comparisons that report enough to diagnose a failure from a log. Plain C++ (no CUDA).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/core/float16.h"
#include "sluice/kernels/resize/resize_cpu.h"
#include "sluice/kernels/resize/resize_gpu.h"
#include "sluice/kernels/resize/resize_normalize_cpu.h"

namespace sluice::kernels::resize_test {

struct TestSample {
  int64_t in_h = 0, in_w = 0;
  std::vector<uint8_t> in;  // HWC, dense, values 1..255 (never 0: a missed write shows)
  ResizeSampleParams params;
  ResizeCrop crop;  // fused path
  bool mirror = false;
  ResizeNormalizeParams norm;
};

inline std::string describe(const TestSample& s, int64_t index) {
  const ResizeGeometry& g = s.params.geometry;
  const ResampleFilters& f = s.params.filters;
  return make_string("sample ", index, ": in ", s.in_h, "x", s.in_w, " -> out ", g.out_h, "x",
                     g.out_w, " window y[", g.src_y0, ", ", g.src_y1, ") x[", g.src_x0, ", ",
                     g.src_x1, ") min ", resample_filter_name(f.min_filter), " mag ",
                     resample_filter_name(f.mag_filter), " antialias ", f.antialias, " crop (",
                     s.crop.y, ", ", s.crop.x, ", ", s.crop.height, "x", s.crop.width, ") mirror ",
                     s.mirror);
}

// A batch mixing extents from 1x1 to max_extent (1000x700 included when max_extent allows),
// up- and downscales, whole-image and random (random-resized-crop like) windows, mirrored
// windows, every filter for min and mag independently, with and without antialiasing.
inline std::vector<TestSample> make_batch(uint32_t seed, int64_t channels, int num_samples,
                                          int64_t max_extent, bool fused) {
  std::mt19937 rng(seed);
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  auto real = [&rng](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  const int64_t kFixed[][2] = {{1, 1}, {1000, 700}, {1, 9}, {7, 1}, {2, 3}, {375, 500}};
  const ResampleFilter kFilters[] = {ResampleFilter::kNearest,    ResampleFilter::kLinear,
                                     ResampleFilter::kTriangular, ResampleFilter::kCubic,
                                     ResampleFilter::kLanczos3,   ResampleFilter::kGaussian};
  std::vector<TestSample> batch(num_samples);
  for (int i = 0; i < num_samples; i++) {
    TestSample& s = batch[i];
    if (i < 6 && kFixed[i][0] <= max_extent && kFixed[i][1] <= max_extent) {
      s.in_h = kFixed[i][0];
      s.in_w = kFixed[i][1];
    } else {
      s.in_h = uniform(1, std::min<int64_t>(max_extent, 400));
      s.in_w = uniform(1, std::min<int64_t>(max_extent, 400));
    }
    s.in.resize(static_cast<size_t>(s.in_h * s.in_w * channels));
    for (auto& v : s.in) v = static_cast<uint8_t>(uniform(1, 255));
    ResizeGeometry& g = s.params.geometry;
    switch (i % 4) {
      case 0:  // whole image, random output (up or down)
        g = {uniform(1, 300),
             uniform(1, 300),
             0,
             0,
             static_cast<double>(s.in_h),
             static_cast<double>(s.in_w)};
        break;
      case 1: {  // random window inside the image (random-resized-crop) to 1..240
        const double h = real(0.3, 1.0) * s.in_h, w = real(0.3, 1.0) * s.in_w;
        const double y0 = real(0, s.in_h - h), x0 = real(0, s.in_w - w);
        g = {uniform(1, 240), uniform(1, 240), y0, x0, y0 + h, x0 + w};
        break;
      }
      case 2: {  // DALI geometry: resize_shorter, mirrored by a negative extent half the time
        ResizeArgs a;
        a.resize_shorter = static_cast<float>(uniform(1, 256));
        g = compute_resize_geometry(s.in_h, s.in_w, a);
        if (uniform(0, 1)) std::swap(g.src_x0, g.src_x1);
        break;
      }
      default:  // a window partly outside the image, mirrored vertically
        g = {uniform(1, 200), uniform(1, 200), s.in_h + real(0, 3),
             real(-4, 0),     real(-3, 1),     s.in_w + real(0, 5)};
        break;
    }
    s.params.filters = {kFilters[uniform(0, 5)], kFilters[uniform(0, 5)], uniform(0, 3) != 0};
    if (fused) {
      s.crop.y = uniform(0, g.out_h - 1);
      s.crop.x = uniform(0, g.out_w - 1);
      s.crop.height = uniform(0, 1) ? -1 : uniform(1, g.out_h - s.crop.y);
      s.crop.width = uniform(0, 1) ? -1 : uniform(1, g.out_w - s.crop.x);
      s.mirror = uniform(0, 1) != 0;
      for (int c = 0; c < 4; c++) {
        s.norm.mean[c] = static_cast<float>(real(0, 255));
        s.norm.stddev[c] = static_cast<float>(real(20, 80));
      }
      s.norm.scale = static_cast<float>(real(0.5, 2));
      s.norm.shift = static_cast<float>(real(-1, 1));
    }
  }
  return batch;
}

inline ResizeCrop resolved_crop(const TestSample& s) {
  ResizeCrop c = s.crop;
  if (c.height < 0) c.height = s.params.geometry.out_h - c.y;
  if (c.width < 0) c.width = s.params.geometry.out_w - c.x;
  return c;
}

// Reference of resize_gpu: resize_cpu. Bytes of the dense output.
inline std::vector<uint8_t> reference_resize(const TestSample& s, int64_t channels,
                                             DType out_type) {
  const ResizeGeometry& g = s.params.geometry;
  const size_t elem = out_type == DType::kUInt8 ? 1 : 4;
  std::vector<uint8_t> out(static_cast<size_t>(g.out_h * g.out_w * channels) * elem);
  ConstHwcImage in(s.in.data(), DType::kUInt8, s.in_h, s.in_w, channels);
  HwcImage o{out.data(), out_type, g.out_h, g.out_w, channels};
  std::vector<std::byte> scratch(resize_cpu_scratch_size(in, o, s.params));
  resize_cpu(in, o, s.params, scratch);
  return out;
}

// Reference of resize_normalize_gpu: resize_cpu to uint8, then crop_mirror_normalize_u8_cpu.
inline std::vector<uint8_t> reference_fused(const TestSample& s, int64_t channels,
                                            ResizeOutputLayout layout, DType out_type) {
  const std::vector<uint8_t> resized = reference_resize(s, channels, DType::kUInt8);
  const ResizeGeometry& g = s.params.geometry;
  const ResizeCrop c = resolved_crop(s);
  const size_t elem = out_type == DType::kFloat32 ? 4 : 2;
  std::vector<uint8_t> out(static_cast<size_t>(c.height * c.width * channels) * elem);
  crop_mirror_normalize_u8_cpu(
      ConstHwcImage(resized.data(), DType::kUInt8, g.out_h, g.out_w, channels), s.crop, s.mirror,
      s.norm, layout, out_type, out.data());
  return out;
}

// Result of comparing one sample's output with its reference.
struct Mismatch {
  int64_t num_values = 0;
  int64_t num_inexact = 0;  // values that differ at all
  int64_t num_too_far = 0;  // values outside the tolerance
  double max_diff = 0;      // uint8: levels; float: relative; half: ulp
  std::string first_too_far;
};

// Element i of a dense output of extent h x w x C (HWC) or C x h x w (CHW) as "(y, x, c)".
inline std::string element_position(int64_t i, int64_t h, int64_t w, int64_t C, bool chw) {
  if (chw) return make_string("(y ", (i / w) % h, ", x ", i % w, ", c ", i / (h * w), ")");
  return make_string("(y ", i / (w * C), ", x ", (i / C) % w, ", c ", i % C, ")");
}

// Tolerances: uint8 within 1 level; float within 1e-3 relative (to max(|ref|, 1)); half within
// 1 ulp of the half of the reference.
inline Mismatch compare_output(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                               DType type, int64_t h, int64_t w, int64_t C, bool chw) {
  Mismatch m;
  auto note = [&](int64_t i, double g, double r, double d, bool too_far) {
    m.num_inexact += d != 0;
    m.max_diff = std::max(m.max_diff, d);
    if (too_far && m.num_too_far++ == 0) {
      m.first_too_far = make_string("first at element ", i, " ", element_position(i, h, w, C, chw),
                                    ": got ", g, ", want ", r);
    }
  };
  if (type == DType::kUInt8) {
    m.num_values = static_cast<int64_t>(want.size());
    for (int64_t i = 0; i < m.num_values; i++) {
      const double d = std::abs(int{got[i]} - int{want[i]});
      note(i, got[i], want[i], d, d > 1);
    }
  } else if (type == DType::kFloat32) {
    m.num_values = static_cast<int64_t>(want.size() / 4);
    for (int64_t i = 0; i < m.num_values; i++) {
      float g, r;
      std::memcpy(&g, &got[i * 4], 4);
      std::memcpy(&r, &want[i * 4], 4);
      const double d =
          std::isnan(g) ? INFINITY : std::abs(double{g} - r) / std::max(1.0, std::abs(double{r}));
      note(i, g, r, d, !(d <= 1e-3));
    }
  } else {
    m.num_values = static_cast<int64_t>(want.size() / 2);
    for (int64_t i = 0; i < m.num_values; i++) {
      uint16_t g, r;
      std::memcpy(&g, &got[i * 2], 2);
      std::memcpy(&r, &want[i * 2], 2);
      // Finite halves of one sign are ordered like their bit patterns.
      const bool same_sign = (g & 0x8000) == (r & 0x8000);
      const double d = same_sign ? std::abs(int{g} - int{r}) : (g & 0x7fff) + (r & 0x7fff);
      note(i, half_bits_to_float(g), half_bits_to_float(r), d, d > 1);
    }
  }
  return m;
}

}  // namespace sluice::kernels::resize_test
