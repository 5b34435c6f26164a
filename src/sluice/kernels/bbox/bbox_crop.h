#pragma once
// random_bbox_crop's search: random crop windows (relative, or of a fixed absolute shape) until
// one overlaps the boxes enough, then the boxes kept (centroid inside, or enough of their area)
// and mapped into the window. 2D or 3D boxes, as corners. The draws come from the sample's
// stream, so the result depends only on (seed, operator, epoch, sample).

#include <cstdint>
#include <vector>

#include "sluice/core/rng.h"

namespace sluice::kernels {

struct CropBox {
  float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
};

struct BBoxCropParams {
  int ndim = 2;
  std::vector<float> thresholds;
  bool allow_no_crop = true;
  int num_attempts = 1;
  int total_num_attempts = -1;  // -1: no limit
  bool overlap_metric = false;  // threshold on intersection / box volume instead of IoU
  bool all_boxes_above_threshold = true;
  float scale_min = 1, scale_max = 1;
  std::vector<float> aspect_ratio;  // [min, max] pairs: one, or one per pair of dimensions
  float prune_threshold = -1;       // >= 0: keep boxes by covered area, not by centroid
};

struct BBoxCropSample {
  std::vector<CropBox> boxes;
  bool fixed_shape = false;      // crop_shape given: absolute windows of that shape
  bool has_input_shape = false;  // aspect ratios count in input units
  float input_shape[3] = {1, 1, 1}, crop_shape[3] = {0, 0, 0};  // W, H(, D)
};

struct BBoxCropResult {
  CropBox window;  // relative, or absolute with a fixed shape
  std::vector<CropBox> boxes;
  std::vector<int> indices;
  bool found = false;  // false: the limit of attempts ran out; the best window so far
  int attempts = 0;
  float best_metric = -1;
};

BBoxCropResult random_bbox_crop(const BBoxCropParams& p, const BBoxCropSample& s, SampleRng rng);

// Intersection over union of two boxes and the share of `box` inside `crop`.
float crop_iou(const CropBox& crop, const CropBox& box, int ndim);
float crop_overlap(const CropBox& crop, const CropBox& box, int ndim);

}  // namespace sluice::kernels
