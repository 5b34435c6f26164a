#pragma once
// COCO segmentation masks as run-length encodings (RLE), and their rasterisation into the
// per-pixel label masks of readers.coco's `pixelwise_masks`.
//
// An RLE covers an h x w image in column-major order: counts[0] pixels of background, then
// counts[1] of foreground, alternating. The functions follow the COCO API (pycocotools'
// maskApi) bit for bit, so that masks equal those of every other COCO tool; the label mask
// follows DALI's readers.coco (see coco_label_mask).
//
// Bad input (a truncated or inconsistent RLE, a polygon too large to rasterise) throws
// sluice::InvalidArgument; callers add the file and annotation.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

struct CocoRle {
  int64_t h = 0;
  int64_t w = 0;
  std::vector<uint32_t> counts;
};

// The counts of COCO's compressed RLE string (LEB128-like, deltas from the count two back).
// Checks that the counts cover exactly h * w pixels.
CocoRle coco_rle_from_string(std::string_view s, int64_t h, int64_t w);

// Checks that `counts` cover exactly h * w pixels (uncompressed RLE).
CocoRle coco_rle_from_counts(std::vector<uint32_t> counts, int64_t h, int64_t w);

// The COCO string of an RLE (the inverse of coco_rle_from_string).
std::string coco_rle_to_string(const CocoRle& rle);

// The RLE of the polygon with vertices `xy` (x0, y0, x1, y1, ...) on an h x w image.
CocoRle coco_rle_from_polygon(std::span<const double> xy, int64_t h, int64_t w);

// The union of RLEs of one size (COCO's rleMerge).
CocoRle coco_rle_union(std::span<const CocoRle> rles);

// One sample's objects and masks, as readers.coco holds them.
struct CocoSampleMasks {
  int64_t h = 0;
  int64_t w = 0;
  std::span<const int32_t> labels;                   // one per object
  std::span<const std::array<int32_t, 3>> polygons;  // object, first vertex, end vertex
  std::span<const std::array<float, 2>> vertices;
  std::span<const int32_t> rle_objects;  // the object of each RLE mask
  std::span<const CocoRle> rles;
};

// Writes the h x w label mask of a sample into `out` (row-major, h * w values). Each label's
// polygons are joined; a label with polygons ignores its RLE masks and of several RLE masks
// the last counts. Labels then stack in increasing order, where DALI's rule decides overlaps:
// the later label wins unless the earlier label's run ends on the overlap. Where the smallest
// label has no mask at all, the mask is empty, as in DALI.
void coco_label_mask(const CocoSampleMasks& sample, int32_t* out);

}  // namespace sluice
