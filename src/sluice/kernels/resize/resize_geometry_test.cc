#include "sluice/kernels/resize/resize_geometry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sluice/core/error.h"

namespace sluice::kernels {
namespace {

using A2 = std::array<float, 2>;

struct GeometryCase {
  std::string name;
  int64_t in_h, in_w;
  ResizeArgs args;
  ResizeGeometry expected;
};

std::string describe(const ResizeGeometry& g) {
  return make_string(g.out_h, "x", g.out_w, " y[", g.src_y0, ", ", g.src_y1, ") x[", g.src_x0, ", ",
                     g.src_x1, ")");
}

ResizeArgs with(void (*fill)(ResizeArgs&)) {
  ResizeArgs a;
  fill(a);
  return a;
}

// Expected values follow DALI's ResizeAttr (resize_attr.cc) and its resize_attr_test.cc, reduced
// to 2D where DALI's cases are 3D, worked out by hand.
const std::vector<GeometryCase>& cases() {
  static const std::vector<GeometryCase> c = {
      // One extent given, mode "default": the other keeps the aspect ratio.
      {"resize_x_landscape",
       768,
       1024,
       with([](ResizeArgs& a) { a.resize_x = 480; }),
       {360, 480, 0, 0, 768, 1024}},
      {"resize_x_portrait",
       320,
       240,
       with([](ResizeArgs& a) { a.resize_x = 480; }),
       {640, 480, 0, 0, 320, 240}},
      {"resize_y_landscape",
       768,
       1024,
       with([](ResizeArgs& a) { a.resize_y = 480; }),
       {480, 640, 0, 0, 768, 1024}},
      {"resize_y_portrait",
       320,
       240,
       with([](ResizeArgs& a) { a.resize_y = 480; }),
       {480, 360, 0, 0, 320, 240}},
      {"size_with_zero_width",
       100,
       200,
       with([](ResizeArgs& a) {
         a.size = A2{50, 0};
       }),
       {50, 100, 0, 0, 100, 200}},
      {"both_given_default_stretches",
       100,
       200,
       with([](ResizeArgs& a) { a.resize_x = 30, a.resize_y = 70; }),
       {70, 30, 0, 0, 100, 200}},
      // Nothing requested (an explicit 0): the input extents.
      {"zero_keeps_input",
       37,
       53,
       with([](ResizeArgs& a) { a.resize_x = 0; }),
       {37, 53, 0, 0, 37, 53}},
      // "stretch": a missing extent keeps the input extent.
      {"stretch_missing_keeps_input",
       234,
       345,
       with([](ResizeArgs& a) { a.resize_x = 120, a.mode = ResizeMode::kStretch; }),
       {234, 120, 0, 0, 234, 345}},
      // resize_shorter = not_smaller with the same size on both axes; max_size wins.
      {"resize_shorter_landscape",
       400,
       800,
       with([](ResizeArgs& a) { a.resize_shorter = 600; }),
       {600, 1200, 0, 0, 400, 800}},
      {"resize_shorter_portrait",
       500,
       250,
       with([](ResizeArgs& a) { a.resize_shorter = 600; }),
       {1200, 600, 0, 0, 500, 250}},
      {"resize_shorter_max_size_w",
       400,
       800,
       with([](ResizeArgs& a) {
         a.resize_shorter = 600, a.max_size = A2{800, 1000};
       }),
       {500, 1000, 0, 0, 400, 800}},
      {"resize_shorter_max_size_h",
       500,
       250,
       with([](ResizeArgs& a) {
         a.resize_shorter = 600, a.max_size = A2{800, 1000};
       }),
       {800, 400, 0, 0, 500, 250}},
      {"resize_longer_landscape",
       400,
       800,
       with([](ResizeArgs& a) { a.resize_longer = 600; }),
       {300, 600, 0, 0, 400, 800}},
      {"resize_longer_portrait",
       500,
       250,
       with([](ResizeArgs& a) { a.resize_longer = 600; }),
       {600, 300, 0, 0, 500, 250}},
      // not_larger / not_smaller with both extents given.
      {"not_larger_a",
       768,
       1024,
       with([](ResizeArgs& a) {
         a.resize_x = 500, a.resize_y = 400, a.mode = ResizeMode::kNotLarger;
       }),
       {375, 500, 0, 0, 768, 1024}},
      {"not_larger_b",
       320,
       240,
       with([](ResizeArgs& a) {
         a.resize_x = 500, a.resize_y = 400, a.mode = ResizeMode::kNotLarger;
       }),
       {400, 300, 0, 0, 320, 240}},
      {"not_smaller_a",
       768,
       1024,
       with([](ResizeArgs& a) {
         a.resize_x = 600, a.resize_y = 480, a.mode = ResizeMode::kNotSmaller;
       }),
       {480, 640, 0, 0, 768, 1024}},
      {"not_smaller_b",
       320,
       240,
       with([](ResizeArgs& a) {
         a.resize_x = 600, a.resize_y = 480, a.mode = ResizeMode::kNotSmaller;
       }),
       {800, 600, 0, 0, 320, 240}},
      {"not_smaller_max_size",
       320,
       240,
       with([](ResizeArgs& a) {
         a.resize_x = 600, a.resize_y = 480, a.mode = ResizeMode::kNotSmaller;
         a.max_size = A2{720, 720};
       }),
       {720, 540, 0, 0, 320, 240}},
      // "default" with max_size limits each axis on its own (no aspect ratio to keep).
      {"default_max_size_per_axis",
       100,
       100,
       with([](ResizeArgs& a) {
         a.resize_x = 400, a.max_size = A2{300, 0};
       }),
       {300, 400, 0, 0, 100, 100}},
      // ROI (DALI's RoI test): a reversed ROI axis and a negative size both mirror.
      {"roi_absolute_a",
       400,
       800,
       with([](ResizeArgs& a) {
         a.resize_x = 200, a.resize_y = -100, a.roi_start = A2{7, 200}, a.roi_end = A2{330, 40};
       }),
       {100, 200, 330, 200, 7, 40}},
      {"roi_absolute_b",
       100,
       250,
       with([](ResizeArgs& a) {
         a.resize_x = 200, a.resize_y = -100, a.roi_start = A2{7, 200}, a.roi_end = A2{80, 230};
       }),
       {100, 200, 80, 200, 7, 230}},
      {"roi_relative_a",
       400,
       800,
       with([](ResizeArgs& a) {
         a.resize_x = -200, a.resize_y = 100, a.roi_start = A2{0.1f, 0.9f};
         a.roi_end = A2{0.5f, 0.5f}, a.roi_relative = true;
       }),
       {100, 200, 40, 400, 200, 720}},
      {"roi_relative_b",
       100,
       250,
       with([](ResizeArgs& a) {
         a.resize_x = -200, a.resize_y = 100, a.roi_start = A2{0.8f, 0.9f};
         a.roi_end = A2{0.5f, 0.5f}, a.roi_relative = true;
       }),
       {100, 200, 80, 125, 50, 225}},
      {"negative_size_mirrors",
       100,
       200,
       with([](ResizeArgs& a) {
         a.size = A2{-50, 100};
       }),
       {50, 100, 100, 0, 0, 200}},
      // Rounding is to nearest with halves away from zero (2.5 -> 3); the window then grows
      // about its centre by 3 / 2.5 so that the scale stays 0.5.
      {"round_half_up_subpixel",
       5,
       10,
       with([](ResizeArgs& a) { a.resize_x = 5; }),
       {3, 5, -0.5, 0, 5.5, 10}},
      {"round_half_up_no_subpixel",
       5,
       10,
       with([](ResizeArgs& a) { a.resize_x = 5, a.subpixel_scale = false; }),
       {3, 5, 0, 0, 5, 10}},
      // At least one pixel; the window adjustment is clamped to 10x.
      {"min_one_pixel",
       10,
       1000,
       with([](ResizeArgs& a) { a.resize_x = 10; }),
       {1, 10, -45, 0, 55, 1000}},
      // An empty input gives an empty output.
      {"empty_input", 0, 5, with([](ResizeArgs& a) { a.resize_x = 10; }), {0, 10, 0, 0, 0, 5}},
  };
  return c;
}

TEST(ResizeGeometry, MatchesDaliRules) {
  for (const GeometryCase& c : cases()) {
    SCOPED_TRACE(c.name);
    ResizeGeometry g = compute_resize_geometry(c.in_h, c.in_w, c.args);
    const ResizeGeometry& e = c.expected;
    EXPECT_EQ(g.out_h, e.out_h) << describe(g);
    EXPECT_EQ(g.out_w, e.out_w) << describe(g);
    EXPECT_NEAR(g.src_y0, e.src_y0, 1e-4) << describe(g);
    EXPECT_NEAR(g.src_y1, e.src_y1, 1e-4) << describe(g);
    EXPECT_NEAR(g.src_x0, e.src_x0, 1e-4) << describe(g);
    EXPECT_NEAR(g.src_x1, e.src_x1, 1e-4) << describe(g);
  }
}

// DALI's Resize3DSubpixelScale, reduced to 2D: the ideal height is fractional, the rounded one
// is used and the window is scaled about its centre by rounded / ideal.
TEST(ResizeGeometry, SubpixelScaleKeepsScaleFactor) {
  ResizeArgs a;
  a.resize_x = 120;
  const double ideal = 234.0 * 120.0 / 345.0;  // 81.39...
  const int64_t rounded = std::lround(ideal);
  ResizeGeometry g = compute_resize_geometry(234, 345, a);
  EXPECT_EQ(g.out_h, rounded);
  EXPECT_EQ(g.out_w, 120);
  const double center = 117;
  EXPECT_NEAR(g.src_y0, center - center * rounded / ideal, 1e-4);
  EXPECT_NEAR(g.src_y1, center + center * rounded / ideal, 1e-4);
  // The scale factor is the requested one, not 234 / 81.
  EXPECT_NEAR((g.src_y1 - g.src_y0) / g.out_h, 345.0 / 120.0, 1e-5);
  a.subpixel_scale = false;
  g = compute_resize_geometry(234, 345, a);
  EXPECT_EQ(g.out_h, rounded);
  EXPECT_EQ(g.src_y0, 0);
  EXPECT_EQ(g.src_y1, 234);
}

TEST(ResizeGeometry, TinyRoiIsWidened) {
  ResizeArgs a;
  a.size = A2{4, 4};
  a.roi_start = A2{10, 10};
  a.roi_end = A2{10, 10};
  ResizeGeometry g = compute_resize_geometry(20, 20, a);
  EXPECT_EQ(g.out_h, 4);
  EXPECT_NEAR(g.src_y0, 10 - 0.5e-3, 1e-6);
  EXPECT_NEAR(g.src_y1, 10 + 0.5e-3, 1e-6);
}

void expect_invalid(int64_t h, int64_t w, const ResizeArgs& a, const std::string& fragment) {
  try {
    compute_resize_geometry(h, w, a);
    ADD_FAILURE() << "expected InvalidArgument mentioning \"" << fragment << "\"";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(ResizeGeometry, ConflictingArgumentsAreInvalid) {
  expect_invalid(10, 10, ResizeArgs{}, "none");
  expect_invalid(10, 10, with([](ResizeArgs& a) {
                   a.resize_x = 5, a.size = A2{5, 5};
                 }),
                 "resize_x, size");
  expect_invalid(10, 10, with([](ResizeArgs& a) { a.resize_shorter = 5, a.resize_longer = 5; }),
                 "resize_shorter, resize_longer");
  expect_invalid(10, 10,
                 with([](ResizeArgs& a) { a.resize_shorter = 5, a.mode = ResizeMode::kStretch; }),
                 "mutually exclusive");
  expect_invalid(10, 10, with([](ResizeArgs& a) {
                   a.resize_x = 5, a.roi_start = A2{0, 0};
                 }),
                 "roi_start and roi_end");
  expect_invalid(10, 10,
                 with([](ResizeArgs& a) { a.resize_x = std::numeric_limits<float>::quiet_NaN(); }),
                 "resize_x");
  expect_invalid(10, 10, with([](ResizeArgs& a) { a.resize_shorter = -5; }), "resize_shorter");
  expect_invalid(10, 10, with([](ResizeArgs& a) {
                   a.resize_x = 5, a.max_size = A2{-1, 3};
                 }),
                 "max_size");
  expect_invalid(10, 10, with([](ResizeArgs& a) { a.resize_x = 1e12f; }), "out of range");
  expect_invalid(-1, 10, with([](ResizeArgs& a) { a.resize_x = 5; }), "input extents");
  expect_invalid(10, 10, with([](ResizeArgs& a) {
                   a.resize_x = 5, a.roi_start = A2{0, std::numeric_limits<float>::infinity()};
                   a.roi_end = A2{1, 1};
                 }),
                 "roi_start");
}

TEST(ResizeGeometry, ParsesModes) {
  for (ResizeMode m : {ResizeMode::kDefault, ResizeMode::kStretch, ResizeMode::kNotSmaller,
                       ResizeMode::kNotLarger}) {
    EXPECT_EQ(parse_resize_mode(resize_mode_name(m)), m);
  }
  EXPECT_THROW(parse_resize_mode("fill"), InvalidArgument);
}

}  // namespace
}  // namespace sluice::kernels
