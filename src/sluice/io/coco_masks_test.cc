#include "sluice/io/coco_masks.h"

#include <gtest/gtest.h>

#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"

namespace sluice {
namespace {

using io_detail::expect_error;

// The binary h x w mask of an RLE, row-major.
std::vector<int> decode(const CocoRle& r) {
  std::vector<int> m(r.h * r.w, 0);
  int64_t p = 0;
  bool on = false;
  for (uint32_t c : r.counts) {
    for (uint32_t j = 0; j < c; ++j, ++p) m[(p % r.h) * r.w + p / r.h] = on;
    on = !on;
  }
  return m;
}

TEST(CocoMasks, RleStringRoundTripsWithNegativeDeltas) {
  CocoRle r{40, 30, {7, 100, 3, 1, 700, 2, 387}};
  std::string s = coco_rle_to_string(r);
  EXPECT_EQ(coco_rle_from_string(s, 40, 30).counts, r.counts);
  EXPECT_EQ(coco_rle_to_string(CocoRle{2, 5, {3, 2, 5}}), "325");
}

TEST(CocoMasks, BadRleStringsAreNamedErrors) {
  expect_error<InvalidArgument>([] { coco_rle_from_string("3P", 2, 5); }, {"ends inside"});
  expect_error<InvalidArgument>([] { coco_rle_from_string("32", 2, 5); }, {"cover 5 pixels"});
  expect_error<InvalidArgument>([] { coco_rle_from_string("3 2", 2, 5); }, {"bad character"});
  expect_error<InvalidArgument>([] { coco_rle_from_string("oooooooooo0", 2, 5); }, {"too long"});
  expect_error<InvalidArgument>([] { coco_rle_from_counts({1, 2}, 2, 5); }, {"cover 3 pixels"});
}

TEST(CocoMasks, PolygonOfARectangleCoversItsPixels) {
  // As in pycocotools: the pixels whose centres lie inside, columns 1..2 and rows 1..3.
  std::vector<double> xy = {1, 1, 3, 1, 3, 4, 1, 4};
  CocoRle r = coco_rle_from_polygon(xy, 6, 5);
  std::vector<int> m = decode(r);
  int area = 0;
  for (int v : m) area += v;
  EXPECT_EQ(r.counts, (std::vector<uint32_t>{7, 3, 3, 3, 14}));
  EXPECT_EQ(area, 6);
  EXPECT_EQ(m[1 * 5 + 1], 1);
  EXPECT_EQ(m[3 * 5 + 2], 1);
  EXPECT_EQ(m[4 * 5 + 1], 0);
  EXPECT_EQ(m[1 * 5 + 3], 0);
  EXPECT_EQ(coco_rle_from_polygon({}, 3, 3).counts, std::vector<uint32_t>{9});
}

TEST(CocoMasks, PolygonFarOutsideTheImageIsRefusedNotAllocated) {
  std::vector<double> xy = {0, 0, 4e8, 0, 0, 4e8};
  expect_error<InvalidArgument>([&] { coco_rle_from_polygon(xy, 4, 4); }, {"too large"});
  std::vector<double> huge = {0, 0, 1e300, 0, 0, 1};
  expect_error<InvalidArgument>([&] { coco_rle_from_polygon(huge, 4, 4); }, {"out of range"});
}

TEST(CocoMasks, UnionJoinsMasks) {
  std::vector<CocoRle> rles = {{2, 3, {1, 1, 4}}, {2, 3, {4, 2}}};
  CocoRle u = coco_rle_union(rles);
  EXPECT_EQ(u.counts, (std::vector<uint32_t>{1, 1, 2, 2}));
}

TEST(CocoMasks, LabelMaskStacksLabelsAndEmptyWithoutMaskOfTheSmallestLabel) {
  std::vector<int32_t> labels = {2, 5};
  std::vector<int32_t> rle_objects = {0, 1};
  std::vector<CocoRle> rles = {{2, 2, {0, 2, 2}}, {2, 2, {2, 2}}};  // left column, right column
  CocoSampleMasks s{2, 2, labels, {}, {}, rle_objects, rles};
  std::vector<int32_t> out(4, -1);
  coco_label_mask(s, out.data());
  EXPECT_EQ(out, (std::vector<int32_t>{2, 5, 2, 5}));
  std::vector<int32_t> labels2 = {1, 2, 5};  // label 1 has no mask
  std::vector<int32_t> rle_objects2 = {1, 2};
  s.labels = labels2;
  s.rle_objects = rle_objects2;
  coco_label_mask(s, out.data());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 0, 0, 0}));
}

}  // namespace
}  // namespace sluice
