#include "sluice/io/coco_annotations.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"
#include "sluice/io/detail/temp_tree.h"

namespace sluice {
namespace {

using io_detail::expect_error;
using io_detail::TempTree;

const char* kJson = R"({
  "info": {"deep": [[[[1]]]]},
  "images": [
    {"id": 9, "file_name": "b.jpg", "width": 20, "height": 10, "coco_url": "x"},
    {"id": 2, "file_name": "a.jpg", "width": 40, "height": 20},
    {"id": 5, "file_name": "c.jpg", "width": 8, "height": 8},
    7
  ],
  "annotations": [
    {"id": 1, "image_id": 9, "category_id": 30, "bbox": [1, 2, 3, 4], "iscrowd": 0,
     "segmentation": [[1, 2, 4, 2, 4, 6], [0, 0, 1, 0, 1, 1, 0, 1]]},
    {"id": 2, "image_id": 2, "category_id": 10, "bbox": [2, 2, 10, 10.5], "iscrowd": 1,
     "segmentation": {"size": [20, 40], "counts": [10, 790]}},
    {"id": 3, "image_id": 9, "category_id": 10, "bbox": [0, 0, 0.05, 4]},
    {"id": 4, "image_id": 2, "category_id": 99, "bbox": [4, 4, 4, 4]},
    {"id": 5, "image_id": 77, "category_id": 10, "bbox": [4, 4, 4, 4]}
  ],
  "categories": [{"id": 30}, {"id": 10}]
})";

CocoAnnotations parse(CocoOptions o, const char* text = kJson) {
  return parse_coco_annotations(text, o, "ann.json");
}

TEST(CocoAnnotations, SamplesByIdLabelsRemappedSmallBoxesDropped) {
  CocoOptions o;
  o.image_ids = true;
  CocoAnnotations a = parse(o);
  ASSERT_EQ(a.files, (std::vector<std::string>{"a.jpg", "c.jpg", "b.jpg"}));
  EXPECT_EQ(a.image_ids, (std::vector<int32_t>{2, 5, 9}));
  ASSERT_EQ(a.sample_labels(0).size(), 2u);
  EXPECT_EQ(a.sample_labels(0)[0], 2);
  EXPECT_EQ(a.sample_labels(0)[1], 0);  // unknown category
  EXPECT_TRUE(a.sample_boxes(1).empty());
  ASSERT_EQ(a.sample_boxes(2).size(), 1u);
  EXPECT_EQ(a.sample_boxes(2)[0], (std::array<float, 4>{1, 2, 3, 4}));
  EXPECT_EQ(a.sample_labels(2)[0], 1);
}

TEST(CocoAnnotations, OptionsFilterAndConvert) {
  CocoOptions o;
  o.include_iscrowd = false;
  o.skip_empty = true;
  o.ltrb = true;
  o.ratio = true;
  o.avoid_class_remapping = true;
  o.polygons = true;
  CocoAnnotations a = parse(o);
  ASSERT_EQ(a.files, (std::vector<std::string>{"a.jpg", "b.jpg"}));
  EXPECT_EQ(a.sample_labels(0)[0], 99);
  EXPECT_EQ(a.sample_boxes(0)[0], (std::array<float, 4>{0.1f, 0.2f, 0.2f, 0.4f}));
  ASSERT_EQ(a.sample_polygons(1).size(), 2u);
  EXPECT_EQ(a.sample_polygons(1)[1], (std::array<int32_t, 3>{0, 3, 7}));
  EXPECT_EQ(a.sample_vertices(1)[1], (std::array<float, 2>{4.f / 20, 2.f / 10}));
  o = {};
  o.images = std::vector<std::string>{"b.jpg", "zzz.jpg", "b.jpg"};
  EXPECT_EQ(parse(o).files, (std::vector<std::string>{"b.jpg", "b.jpg"}));
}

TEST(CocoAnnotations, RleMasksAreKeptForPixelwiseMasks) {
  CocoOptions o;
  o.polygons = o.rles = true;
  CocoAnnotations a = parse(o);
  CocoSampleMasks m = a.sample_masks(0);
  EXPECT_EQ(m.h, 20);
  EXPECT_EQ(m.w, 40);
  ASSERT_EQ(m.rles.size(), 1u);
  EXPECT_EQ(m.rle_objects[0], 0);
  EXPECT_EQ(m.rles[0].counts, (std::vector<uint32_t>{10, 790}));
}

TEST(CocoAnnotations, BadInputNamesTheFileAndTheEntry) {
  CocoOptions o;
  expect_error<InvalidArgument>([&] { parse(o, "{\"images\": [}"); }, {"ann.json", "byte 13"});
  expect_error<InvalidArgument>([&] { parse(o, "[1]"); }, {"ann.json", "top level"});
  expect_error<InvalidArgument>([&] { parse(o, "{\"images\": {}}"); }, {"'images' must be"});
  expect_error<InvalidArgument>(
      [&] {
        parse(o, R"({"annotations": [{"id": 4, "image_id": 1, "category_id": 1,
                          "bbox": [1, 2, 3]}]})");
      },
      {"ann.json", "annotations[0] (id 4)", "bbox"});
  expect_error<InvalidArgument>(
      [&] { parse(o, R"({"annotations": [{}, {"image_id": 1, "category_id": "x"}]})"); },
      {"annotations[0]", "'image_id' is missing"});
  expect_error<InvalidArgument>([&] { parse(o, R"({"images": [{"id": 1e3, "file_name": "a"}]})"); },
                                {"images[0]", "'id' must be an integer"});
  expect_error<InvalidArgument>(
      [&] { parse(o, R"({"images": [{"id": 3000000000, "file_name": "a"}]})"); },
      {"images[0]", "out of range"});
  o.polygons = o.rles = true;
  expect_error<InvalidArgument>(
      [&] {
        parse(o, R"({"annotations": [{"id": 8, "image_id": 1, "category_id": 1,
          "bbox": [1, 2, 3, 4], "segmentation": {"size": [2, 2], "counts": "3"}}]})");
      },
      {"annotations[0] (id 8)", "RLE", "cover 3 pixels"});
  expect_error<InvalidArgument>(
      [&] {
        parse(o, R"({"annotations": [{"id": 8, "image_id": 1, "category_id": 1,
          "bbox": [1, 2, 3, 4], "segmentation": [[1, 2, 3]]}]})");
      },
      {"annotations[0] (id 8)", "odd"});
  expect_error<InvalidArgument>(
      [&] {
        parse(o, R"({"images": [{"id": 1, "file_name": "a", "width": 4, "height": 4}],
          "annotations": [{"image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4],
          "segmentation": {"size": [2, 2], "counts": [4]}}]})");
      },
      {"ann.json", "image 1 ('a')", "2 x 2"});
}

TEST(CocoAnnotations, PreprocessedFilesRoundTripAndBadOnesAreRefused) {
  TempTree t;
  CocoOptions o;
  o.polygons = o.rles = o.image_ids = true;
  CocoAnnotations a = parse(o);
  std::string dir = (std::filesystem::path(t.root()) / "meta").string();
  save_coco_preprocessed(a, o, dir);
  CocoAnnotations b = load_coco_preprocessed(dir, o);
  EXPECT_EQ(b.files, a.files);
  EXPECT_EQ(b.image_ids, a.image_ids);
  EXPECT_EQ(b.boxes, a.boxes);
  EXPECT_EQ(b.labels, a.labels);
  EXPECT_EQ(b.polygons, a.polygons);
  EXPECT_EQ(b.vertices, a.vertices);
  ASSERT_EQ(b.rles.size(), 1u);
  EXPECT_EQ(b.rles[0].counts, a.rles[0].counts);
  EXPECT_EQ(b.heights, a.heights);
  std::filesystem::copy_file(dir + "/counts.dat", dir + "/counts.bak");
  {
    std::ofstream f(dir + "/counts.dat", std::ios::binary);  // one count for three images
    const char one_count[8] = {1, 0, 0, 0, 2, 0, 0, 0};
    f.write(one_count, sizeof(one_count));
  }
  expect_error<InvalidArgument>([&] { load_coco_preprocessed(dir, o); },
                                {"offsets.dat/counts.dat", "3 offsets and 1 counts"});
  std::filesystem::rename(dir + "/counts.bak", dir + "/counts.dat");
  std::filesystem::resize_file(dir + "/boxes.dat", 10);
  expect_error<InvalidArgument>([&] { load_coco_preprocessed(dir, o); }, {"boxes.dat", "too few"});
  std::filesystem::remove(dir + "/boxes.dat");
  expect_error<InvalidArgument>([&] { load_coco_preprocessed(dir, o); },
                                {"offsets.dat", "outside the data"});
  expect_error<IOError>([&] { load_coco_preprocessed(dir + "/none", o); }, {"not a folder"});
}

}  // namespace
}  // namespace sluice
