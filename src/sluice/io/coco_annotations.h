#pragma once
// COCO detection annotations for readers.coco: the JSON file (images, categories, annotations)
// parsed into per-sample boxes, labels, polygons and RLE masks, with DALI's selection and
// ordering of samples; and DALI's preprocessed form of the same (binary meta files in a folder).
//
// Samples are the images ordered by id (or the `images` list, in its order, duplicates
// included); each keeps its annotations in file order, minus crowd annotations (unless
// `include_iscrowd`) and boxes narrower or lower than `size_threshold`. Labels are the
// categories' positions in the file from 1 (or their ids, with `avoid_class_remapping`).
//
// The JSON is read in one pass (RapidJSON's SAX reader) that parses each entry of the three
// sections on its own, converts it and drops it: memory holds the file's bytes, the kept data and
// one entry's tree. Errors are sluice::InvalidArgument (or
// IOError for unreadable files) naming the file and, for a bad entry, its section, position and id.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/io/coco_masks.h"

namespace sluice {

struct CocoOptions {
  float size_threshold = 0.1f;
  bool ltrb = false;
  bool ratio = false;
  bool skip_empty = false;
  bool include_iscrowd = true;
  bool avoid_class_remapping = false;
  bool polygons = false;  // keep polygon segmentations (polygon or pixelwise masks)
  bool rles = false;      // keep RLE segmentations and image sizes (pixelwise masks)
  bool image_ids = false;
  std::optional<std::vector<std::string>> images;  // file names to read, in this order
};

// Offsets into the flat arrays below, per sample.
struct CocoRange {
  int64_t offset = 0;
  int64_t count = 0;
};

struct CocoAnnotations {
  std::vector<std::string> files;        // per sample, relative to file_root
  std::vector<int32_t> image_ids;        // per sample (with CocoOptions::image_ids)
  std::vector<int32_t> heights, widths;  // per sample (with CocoOptions::rles)
  std::vector<CocoRange> objects, polygon_ranges, vertex_ranges, rle_ranges;  // per sample
  std::vector<std::array<float, 4>> boxes;                                    // per object
  std::vector<int32_t> labels;                                                // per object
  std::vector<std::array<int32_t, 3>> polygons;  // object in sample, first vertex, end vertex
  std::vector<std::array<float, 2>> vertices;
  std::vector<int32_t> rle_objects;  // per RLE mask: its object in the sample
  std::vector<CocoRle> rles;

  size_t size() const { return files.size(); }
  std::span<const std::array<float, 4>> sample_boxes(size_t i) const {
    return slice(boxes, objects[i]);
  }
  std::span<const int32_t> sample_labels(size_t i) const { return slice(labels, objects[i]); }
  std::span<const std::array<int32_t, 3>> sample_polygons(size_t i) const {
    return slice(polygons, polygon_ranges[i]);
  }
  std::span<const std::array<float, 2>> sample_vertices(size_t i) const {
    return slice(vertices, vertex_ranges[i]);
  }
  CocoSampleMasks sample_masks(size_t i) const {
    return {heights[i],
            widths[i],
            sample_labels(i),
            sample_polygons(i),
            sample_vertices(i),
            slice(rle_objects, rle_ranges[i]),
            slice(rles, rle_ranges[i])};
  }

 private:
  template <typename T>
  static std::span<const T> slice(const std::vector<T>& v, CocoRange r) {
    return std::span<const T>(v).subspan(static_cast<size_t>(r.offset),
                                         static_cast<size_t>(r.count));
  }
};

// Parses COCO JSON text; `name` (the file) starts error messages.
CocoAnnotations parse_coco_annotations(std::string_view json, const CocoOptions& options,
                                       const std::string& name);

// Reads and parses the annotations file at `path`.
CocoAnnotations load_coco_annotations(const std::string& path, const CocoOptions& options);

// Writes DALI's meta files (offsets.dat, boxes.dat, filenames.dat, ...) into folder `dir`,
// creating it; readable by DALI's `preprocessed_annotations` and by the function below.
void save_coco_preprocessed(const CocoAnnotations& a, const CocoOptions& options,
                            const std::string& dir);

// Reads the meta files of folder `dir` (boxes and polygons as they were saved: ltrb, ratio and
// the filters are not applied again). Checks that every range lies inside its data.
CocoAnnotations load_coco_preprocessed(const std::string& dir, const CocoOptions& options);

}  // namespace sluice
