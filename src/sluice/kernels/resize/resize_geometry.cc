#include "sluice/kernels/resize/resize_geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "sluice/core/error.h"

namespace sluice::kernels {
namespace {

// The arithmetic below deliberately keeps DALI's types (float extents, double scales, float
// windows): extents are rounded at the end, and a different mix would round differently at ties
// such as 66.5, which do occur with "nice" sizes.
constexpr int kNdim = 2;
using Extents = std::array<float, kNdim>;

void check_finite(float v, const char* name) {
  SLUICE_CHECK(std::isfinite(v), InvalidArgument, "resize: ", name, " must be finite, got ", v);
}

void check_finite(const std::optional<std::array<float, 2>>& v, const char* name) {
  if (!v) return;
  for (float x : *v) check_finite(x, name);
}

void check_non_negative(const std::optional<float>& v, const char* name) {
  if (!v) return;
  check_finite(*v, name);
  SLUICE_CHECK(*v >= 0, InvalidArgument, "resize: ", name, " must be >= 0, got ", *v);
}

// DALI's ResizeAttr::AdjustOutputSize: fills in and corrects the requested extents `out`
// (signed: negative = mirror) for the input extents `in` (positive).
void adjust_output_size(Extents& out, const Extents& in, ResizeMode mode,
                        const std::optional<Extents>& max_size) {
  std::array<double, kNdim> scale{1, 1};
  std::array<bool, kNdim> given{};
  int num_given = 0;
  for (int d = 0; d < kNdim; d++) {
    given[d] = out[d] != 0 && in[d] != 0;
    scale[d] = in[d] != 0 ? out[d] / in[d] : 1;  // float division, as DALI
    num_given += given[d];
  }
  if (num_given == 0) {  // nothing requested: keep the input extents
    out = in;
    return;
  }
  auto apply_max_size = [&] {
    if (!max_size) return;
    for (int d = 0; d < kNdim; d++) {
      float limit = (*max_size)[d];
      if (limit > 0 && std::abs(out[d]) > limit) {
        out[d] = std::copysign(limit, out[d]);
        scale[d] = out[d] / in[d];
      }
    }
  };
  if (mode == ResizeMode::kDefault) {
    if (num_given < kNdim) {
      double avg_scale = 1;
      for (int d = 0; d < kNdim; d++) {
        if (given[d]) avg_scale *= std::abs(scale[d]);
      }
      if (num_given > 1) avg_scale = std::pow(avg_scale, 1.0 / num_given);
      for (int d = 0; d < kNdim; d++) {
        if (!given[d]) {
          scale[d] = avg_scale;
          out[d] = static_cast<float>(in[d] * scale[d]);
        }
      }
    }
    apply_max_size();
  } else if (mode == ResizeMode::kStretch) {
    for (int d = 0; d < kNdim; d++) {
      if (!given[d]) {
        scale[d] = 1;
        out[d] = in[d];
      }
    }
    apply_max_size();
  } else {
    // One scale for all axes: the largest (not_smaller) or smallest (not_larger) given one,
    // then reduced so that no axis exceeds max_size.
    double final_scale = 0;
    bool first = true;
    for (int d = 0; d < kNdim; d++) {
      if (!given[d]) continue;
      float s = static_cast<float>(std::abs(scale[d]));
      if (first || (mode == ResizeMode::kNotSmaller && s > final_scale) ||
          (mode == ResizeMode::kNotLarger && s < final_scale)) {
        final_scale = s;
      }
      first = false;
    }
    if (max_size) {
      for (int d = 0; d < kNdim; d++) {
        if ((*max_size)[d] > 0) {
          double s = static_cast<double>((*max_size)[d]) / in[d];
          if (s < final_scale) final_scale = s;
        }
      }
    }
    for (int d = 0; d < kNdim; d++) {
      if (!given[d] || std::abs(scale[d]) != final_scale) {
        scale[d] = std::copysign(final_scale, scale[d]);
        out[d] = static_cast<float>(in[d] * scale[d]);
      }
    }
  }
}

}  // namespace

ResizeMode parse_resize_mode(std::string_view name) {
  if (name == "default") return ResizeMode::kDefault;
  if (name == "stretch") return ResizeMode::kStretch;
  if (name == "not_smaller") return ResizeMode::kNotSmaller;
  if (name == "not_larger") return ResizeMode::kNotLarger;
  throw InvalidArgument(make_string("resize: mode must be one of \"default\", \"stretch\", ",
                                    "\"not_smaller\", \"not_larger\"; got \"", name, "\""));
}

std::string_view resize_mode_name(ResizeMode mode) {
  switch (mode) {
    case ResizeMode::kDefault:
      return "default";
    case ResizeMode::kStretch:
      return "stretch";
    case ResizeMode::kNotSmaller:
      return "not_smaller";
    case ResizeMode::kNotLarger:
      return "not_larger";
  }
  return "?";
}

ResizeGeometry compute_resize_geometry(int64_t in_h, int64_t in_w, const ResizeArgs& a) {
  SLUICE_CHECK(in_h >= 0 && in_w >= 0, InvalidArgument, "resize: input extents must be >= 0, got ",
               in_h, "x", in_w);

  // 1. Which way of giving the size (DALI: exactly one).
  const bool separate = a.resize_x.has_value() || a.resize_y.has_value();
  const int num_ways =
      separate + a.size.has_value() + a.resize_shorter.has_value() + a.resize_longer.has_value();
  if (num_ways != 1) {
    std::string given;
    auto add = [&given](bool present, const char* name) {
      if (!present) return;
      if (!given.empty()) given += ", ";
      given += name;
    };
    add(a.resize_x.has_value(), "resize_x");
    add(a.resize_y.has_value(), "resize_y");
    add(a.size.has_value(), "size");
    add(a.resize_shorter.has_value(), "resize_shorter");
    add(a.resize_longer.has_value(), "resize_longer");
    throw InvalidArgument(make_string(
        "resize: exactly one way of giving the size must be used (resize_x / resize_y, size, ",
        "resize_shorter or resize_longer); got ", given.empty() ? "none" : given));
  }
  SLUICE_CHECK(a.resize_shorter.has_value() + a.resize_longer.has_value() + a.mode.has_value() <= 1,
               InvalidArgument,
               "resize: resize_shorter, resize_longer and mode are mutually exclusive");
  SLUICE_CHECK(a.roi_start.has_value() == a.roi_end.has_value(), InvalidArgument,
               "resize: roi_start and roi_end must be given together (got only ",
               a.roi_start ? "roi_start" : "roi_end", ")");
  if (a.resize_x) check_finite(*a.resize_x, "resize_x");
  if (a.resize_y) check_finite(*a.resize_y, "resize_y");
  check_finite(a.size, "size");
  check_non_negative(a.resize_shorter, "resize_shorter");
  check_non_negative(a.resize_longer, "resize_longer");
  check_finite(a.roi_start, "roi_start");
  check_finite(a.roi_end, "roi_end");
  check_finite(a.max_size, "max_size");
  if (a.max_size) {
    for (float v : *a.max_size) {
      SLUICE_CHECK(v >= 0, InvalidArgument, "resize: max_size must be >= 0, got ", v);
    }
  }

  ResizeMode mode = ResizeMode::kDefault;
  if (a.resize_shorter) {
    mode = ResizeMode::kNotSmaller;
  } else if (a.resize_longer) {
    mode = ResizeMode::kNotLarger;
  } else if (a.mode) {
    mode = *a.mode;
  }

  Extents requested{};
  if (separate) {
    requested = {a.resize_y.value_or(0.f), a.resize_x.value_or(0.f)};
  } else if (a.size) {
    requested = *a.size;
  } else {
    float v = a.resize_shorter ? *a.resize_shorter : *a.resize_longer;
    requested = {v, v};
  }

  // 2. Input window (DALI's CalculateInputRoI): the ROI, or the whole axis. A ROI narrower than
  // 1e-3 px is widened to that about its centre so that the scale stays finite.
  const std::array<int64_t, kNdim> in_size{in_h, in_w};
  Extents lo{}, hi{};
  for (int d = 0; d < kNdim; d++) {
    if (a.roi_start && in_size[d] > 0) {
      double l = (*a.roi_start)[d];
      double h = (*a.roi_end)[d];
      if (a.roi_relative) {
        l *= static_cast<double>(in_size[d]);
        h *= static_cast<double>(in_size[d]);
      }
      constexpr float kMinRoi = 1e-3f;
      if (std::fabs(h - l) < kMinRoi) {
        float offset = l <= h ? 0.5f * kMinRoi : -0.5f * kMinRoi;
        l -= offset;
        h += offset;
      }
      lo[d] = static_cast<float>(l);
      hi[d] = static_cast<float>(h);
    } else {
      lo[d] = 0;
      hi[d] = static_cast<float>(in_size[d]);
    }
  }

  // 3. DALI's CalculateSampleParams: a reversed window becomes a forward one with a negated
  // request, so mirroring is carried by the sign until the end.
  Extents extent{};
  for (int d = 0; d < kNdim; d++) {
    float sz = hi[d] - lo[d];
    if (sz < 0) {
      std::swap(lo[d], hi[d]);
      requested[d] = -requested[d];
      sz = -sz;
    }
    extent[d] = sz;
  }
  std::optional<Extents> max_size;
  if (a.max_size) max_size = *a.max_size;
  adjust_output_size(requested, extent, mode, max_size);

  for (int d = 0; d < kNdim; d++) {
    SLUICE_CHECK(lo[d] != hi[d] || requested[d] == 0, InvalidArgument,
                 "resize: cannot produce a non-empty output from an empty input (input ", in_h, "x",
                 in_w, ", requested ", requested[0], "x", requested[1], ")");
  }

  const bool empty_input = in_h * in_w == 0;
  const int64_t min_extent = empty_input ? 0 : 1;
  std::array<int64_t, kNdim> out{};
  for (int d = 0; d < kNdim; d++) {
    float out_sz = requested[d];
    float magnitude = std::fabs(out_sz);
    // Kernels index with int32: larger extents are refused rather than wrapped.
    SLUICE_CHECK(std::isfinite(out_sz) && std::round(magnitude) <= 2147483647.0, InvalidArgument,
                 "resize: output extent ", out_sz, " along ", d == 0 ? "y" : "x",
                 " is out of range (at most 2^31 - 1)");
    out[d] = std::max<int64_t>(min_extent, static_cast<int64_t>(std::round(magnitude)));
    if (out_sz < 0) std::swap(lo[d], hi[d]);
    if (a.subpixel_scale && static_cast<float>(out[d]) != magnitude) {
      // Keep the centre, scale the window by real / ideal extent so the scale factor is exact.
      double adjustment = std::clamp(static_cast<double>(out[d]) / magnitude, -10.0, 10.0);
      double center = (lo[d] + hi[d]) * 0.5;
      lo[d] = static_cast<float>(std::clamp(center + (lo[d] - center) * adjustment, -1e9, 1e9));
      hi[d] = static_cast<float>(std::clamp(center + (hi[d] - center) * adjustment, -1e9, 1e9));
    }
  }

  ResizeGeometry g;
  g.out_h = out[0];
  g.out_w = out[1];
  g.src_y0 = lo[0];
  g.src_y1 = hi[0];
  g.src_x0 = lo[1];
  g.src_x1 = hi[1];
  return g;
}

}  // namespace sluice::kernels
