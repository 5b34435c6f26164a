#include "sluice/kernels/crop/crop_window.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sluice/core/error.h"

namespace sluice {
namespace {

TEST(OutOfBoundsPolicy, ParsesDaliNamesAndRejectsOthers) {
  EXPECT_EQ(parse_out_of_bounds_policy("error"), OutOfBoundsPolicy::kError);
  EXPECT_EQ(parse_out_of_bounds_policy("pad"), OutOfBoundsPolicy::kPad);
  EXPECT_EQ(parse_out_of_bounds_policy("trim_to_shape"), OutOfBoundsPolicy::kTrimToShape);
  for (auto p :
       {OutOfBoundsPolicy::kError, OutOfBoundsPolicy::kPad, OutOfBoundsPolicy::kTrimToShape}) {
    EXPECT_EQ(parse_out_of_bounds_policy(out_of_bounds_policy_name(p)), p);
  }
  try {
    parse_out_of_bounds_policy("clamp");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("clamp"), std::string::npos) << e.what();
  }
}

TEST(OutOfBoundsPolicy, ErrorRejectsWindowsReachingOutside) {
  const CropWindow inside{2, 3, 10, 20};
  EXPECT_EQ(apply_out_of_bounds_policy(inside, 12, 23, OutOfBoundsPolicy::kError), inside);
  for (CropWindow w : {CropWindow{-1, 0, 5, 5}, CropWindow{0, -1, 5, 5}, CropWindow{8, 0, 5, 5},
                       CropWindow{0, 9, 5, 5}}) {
    try {
      apply_out_of_bounds_policy(w, 12, 13, OutOfBoundsPolicy::kError);
      FAIL() << to_string(w);
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(to_string(w)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("12x13"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(apply_out_of_bounds_policy({0, 0, -1, 3}, 5, 5, OutOfBoundsPolicy::kPad),
               InvalidArgument);
}

TEST(OutOfBoundsPolicy, TrimIntersectsAndPadKeeps) {
  const CropWindow w{-3, 5, 10, 20};  // rows -3..6, columns 5..24 of an 8 x 12 image
  EXPECT_EQ(apply_out_of_bounds_policy(w, 8, 12, OutOfBoundsPolicy::kPad), w);
  EXPECT_EQ(apply_out_of_bounds_policy(w, 8, 12, OutOfBoundsPolicy::kTrimToShape),
            (CropWindow{0, 5, 7, 7}));
  // Entirely outside: empty.
  CropWindow t = apply_out_of_bounds_policy({20, 30, 4, 4}, 8, 12, OutOfBoundsPolicy::kTrimToShape);
  EXPECT_EQ(t.h, 0);
  EXPECT_EQ(t.w, 0);
  // Window larger than the image on both sides: the whole image.
  EXPECT_EQ(apply_out_of_bounds_policy({-5, -5, 30, 40}, 8, 12, OutOfBoundsPolicy::kTrimToShape),
            (CropWindow{0, 0, 8, 12}));
}

TEST(FixedCropWindow, MatchesDaliTestFormulaWhenTheWindowFits) {
  // DALI's test_crop_mirror_normalize.py: start = int(float32(pos) * float32(H - crop) + 0.5f).
  const float positions[] = {0.0f, 0.1f, 0.2f, 0.3f, 0.5f, 0.7f, 0.95f, 1.0f};
  for (int64_t size = 1; size <= 300; size += 7) {
    for (int64_t crop = 1; crop <= size; crop += 5) {
      for (float py : positions) {
        const float px = 1.0f - py;
        CropWindow w = fixed_crop_window(size, size + 3, crop, crop + 1, py, px);
        const auto ey = static_cast<int64_t>(py * static_cast<float>(size - crop) + 0.5f);
        const auto ex = static_cast<int64_t>(px * static_cast<float>(size + 3 - crop - 1) + 0.5f);
        ASSERT_EQ(w, (CropWindow{ey, ex, crop, crop + 1}))
            << "size " << size << " crop " << crop << " pos " << py;
        ASSERT_TRUE(w.inside(size, size + 3));
      }
    }
  }
}

TEST(FixedCropWindow, LargerThanImageGoesNegativeLikeDaliCropAttr) {
  // DALI's out-of-bounds test: pos 0.5, H 40 -> crop 80 starts at 0.5 * (40 - 80) = -20.
  EXPECT_EQ(fixed_crop_window(40, 80, 80, 160, 0.5f, 0.5f), (CropWindow{-20, -40, 80, 160}));
  EXPECT_EQ(fixed_crop_window(40, 80, 41, 81, 0.5f, 0.0f), (CropWindow{-1, 0, 41, 81}));
  EXPECT_EQ(fixed_crop_window(40, 80, 81, 81, 0.5f, 0.0f), (CropWindow{-21, 0, 81, 81}));
  // -0.5 rounds away from zero, as std::roundf does.
  EXPECT_EQ(fixed_crop_window(40, 40, 41, 41, 0.5f, 1.0f), (CropWindow{-1, -1, 41, 41}));
}

TEST(FixedCropWindow, NoCropMeansWholeExtentAndPositionsAreValidated) {
  EXPECT_EQ(fixed_crop_window(30, 50, 0, 20, 0.5f, 0.5f), (CropWindow{0, 15, 30, 20}));
  EXPECT_EQ(fixed_crop_window(30, 50, 10, 0, 1.0f, 0.5f), (CropWindow{20, 0, 10, 50}));
  EXPECT_THROW(fixed_crop_window(30, 50, 10, 10, -0.1f, 0.5f), InvalidArgument);
  EXPECT_THROW(fixed_crop_window(30, 50, 10, 10, 0.5f, 1.5f), InvalidArgument);
  EXPECT_THROW(fixed_crop_window(30, 50, 10, 10, NAN, 0.5f), InvalidArgument);
}

TEST(SliceWindow, AbsoluteAndRelativeFormsAgreeOnDaliExample) {
  // DALI test_slice.py check_slice_named_args: a 5 x 4 image, start (1, 2), shape (3, 1).
  const CropWindow expected{1, 2, 3, 1};
  SliceArgs abs{1, 2, 3, 1, false, false};
  EXPECT_EQ(slice_window(5, 4, abs), expected);
  SliceArgs rel{1.0 / 5, 2.0 / 4, 3.0 / 5, 1.0 / 4, true, true};
  EXPECT_EQ(slice_window(5, 4, rel), expected);
  SliceArgs rel_anchor{1.0 / 5, 2.0 / 4, 3, 1, true, false};
  EXPECT_EQ(slice_window(5, 4, rel_anchor), expected);
  SliceArgs rel_shape{1, 2, 3.0 / 5, 1.0 / 4, false, true};
  EXPECT_EQ(slice_window(5, 4, rel_shape), expected);
}

TEST(SliceWindow, RoundsHalvesAwayFromZeroLikeDali) {
  // Relative anchor and shape: the end is rounded, not the shape.
  // H = 10: anchor 0.25 -> 2.5 -> 3; end 0.25 + 0.5 = 0.75 -> 7.5 -> 8; h = 5.
  SliceArgs a{0.25, -0.25, 0.5, 0.5, true, true};
  CropWindow w = slice_window(10, 10, a);
  EXPECT_EQ(w.y, 3);
  EXPECT_EQ(w.h, 5);
  EXPECT_EQ(w.x, -3);  // -2.5 -> -3
  EXPECT_EQ(w.w, 6);   // end (-0.25 + 0.5) * 10 = 2.5 -> 3; 3 - (-3) = 6
}

TEST(SliceWindow, RejectsNegativeOrNonFiniteArguments) {
  EXPECT_THROW(slice_window(10, 10, SliceArgs{0, 0, -1, 2, false, false}), InvalidArgument);
  EXPECT_THROW(slice_window(10, 10, SliceArgs{NAN, 0, 1, 2, false, false}), InvalidArgument);
  EXPECT_THROW(slice_window(10, 10, SliceArgs{0, 0, 1, INFINITY, false, true}), InvalidArgument);
}

}  // namespace
}  // namespace sluice
