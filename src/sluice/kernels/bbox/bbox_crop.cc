#include "sluice/kernels/bbox/bbox_crop.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sluice::kernels {
namespace {

float box_volume(const CropBox& b, int ndim) {
  float v = 1;
  for (int d = 0; d < ndim; ++d) v *= b.hi[d] - b.lo[d];
  return v;
}

float intersection_volume(const CropBox& a, const CropBox& b, int ndim) {
  CropBox i;
  for (int d = 0; d < ndim; ++d) {
    i.lo[d] = std::max(a.lo[d], b.lo[d]);
    i.hi[d] = std::min(a.hi[d], b.hi[d]);
    if (i.hi[d] <= i.lo[d]) return 0;
  }
  return box_volume(i, ndim);
}

bool contains_centroid(const CropBox& crop, const CropBox& b, int ndim) {
  for (int d = 0; d < ndim; ++d) {
    const float c = (b.lo[d] + b.hi[d]) * 0.5f;
    if (!(c >= crop.lo[d] && c < crop.hi[d])) return false;
  }
  return true;
}

CropBox remap(const CropBox& b, const CropBox& crop, int ndim) {
  CropBox out;
  for (int d = 0; d < ndim; ++d) {
    const float extent = crop.hi[d] - crop.lo[d];
    const float lo = (std::max(crop.lo[d], b.lo[d]) - crop.lo[d]) / extent;
    const float hi = (std::min(crop.hi[d], b.hi[d]) - crop.lo[d]) / extent;
    out.lo[d] = std::clamp(lo, 0.0f, 1.0f);
    out.hi[d] = std::clamp(hi, 0.0f, 1.0f);
  }
  return out;
}

// The aspect-ratio range of dimension pair k (d0 < d1, in order).
void aspect_range(const BBoxCropParams& p, int k, float& lo, float& hi) {
  const int r = k % static_cast<int>(p.aspect_ratio.size() / 2);
  lo = p.aspect_ratio[2 * r], hi = p.aspect_ratio[2 * r + 1];
}

// Where a range is a single value, sets the dimensions to follow it (pairs in a random order),
// then rescales so that the largest extent is what it was.
void fix_aspect_ratios(const BBoxCropParams& p, float* shape, SampleRng& rng) {
  const int n = p.ndim;
  float fixed[9] = {};
  bool need = false;
  for (int d0 = 0, k = 0; d0 < n; ++d0) {
    for (int d1 = d0 + 1; d1 < n; ++d1, ++k) {
      float lo, hi;
      aspect_range(p, k, lo, hi);
      if (lo == hi) {
        fixed[d0 * n + d1] = lo;
        fixed[d1 * n + d0] = 1.0f / lo;
        need = true;
      }
    }
  }
  if (!need) return;
  int order[3] = {0, 1, 2};
  for (int i = n - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  float max_extent = 0;
  for (int d = 0; d < n; ++d) max_extent = std::max(max_extent, shape[d]);
  for (int i0 = 0; i0 < n; ++i0) {
    for (int i1 = i0 + 1; i1 < n; ++i1) {
      const int d0 = order[i0], d1 = order[i1];
      if (fixed[d1 * n + d0] > 0) shape[d1] = shape[d0] * fixed[d1 * n + d0];
    }
  }
  float new_max = 0;
  for (int d = 0; d < n; ++d) new_max = std::max(new_max, shape[d]);
  for (int d = 0; d < n; ++d) shape[d] = max_extent * shape[d] / new_max;
}

bool valid_aspect_ratio(const BBoxCropParams& p, const float* shape) {
  for (int d0 = 0, k = 0; d0 < p.ndim; ++d0) {
    for (int d1 = d0 + 1; d1 < p.ndim; ++d1, ++k) {
      float lo, hi;
      aspect_range(p, k, lo, hi);
      const float ar = shape[d0] / shape[d1];
      if (!(ar >= lo && ar <= hi)) return false;
    }
  }
  return true;
}

// A window: `rel` in relative coordinates, `out` as the output gives it. False when its aspect
// ratio is out of range.
bool draw_window(const BBoxCropParams& p, const BBoxCropSample& s, SampleRng& rng, CropBox& rel,
                 CropBox& out) {
  const int n = p.ndim;
  if (s.fixed_shape) {
    for (int d = 0; d < n; ++d) {
      const float room = s.input_shape[d] - s.crop_shape[d];  // negative: the window is larger
      const auto span = static_cast<uint32_t>(std::fabs(room)) + 1;
      const float anchor = std::min(room, 0.0f) + static_cast<float>(rng.below(span));
      out.lo[d] = anchor;
      out.hi[d] = anchor + s.crop_shape[d];
      rel.lo[d] = anchor / s.input_shape[d];
      rel.hi[d] = rel.lo[d] + s.crop_shape[d] / s.input_shape[d];
    }
    return true;
  }
  float shape[3];
  for (int d = 0; d < n; ++d) {
    shape[d] = rng.uniform(p.scale_min, p.scale_max);
    if (s.has_input_shape) shape[d] *= s.input_shape[d];  // aspect ratios in input units
  }
  fix_aspect_ratios(p, shape, rng);
  if (!valid_aspect_ratio(p, shape)) return false;
  for (int d = 0; d < n; ++d) {
    if (s.has_input_shape) shape[d] /= s.input_shape[d];
    const float anchor = rng.uniform(0.0f, 1.0f - shape[d]);
    rel.lo[d] = anchor;
    rel.hi[d] = anchor + shape[d];
  }
  out = rel;
  return true;
}

}  // namespace

float crop_iou(const CropBox& crop, const CropBox& box, int ndim) {
  const float inter = intersection_volume(crop, box, ndim);
  if (inter == 0) return 0;
  return inter / (box_volume(crop, ndim) + box_volume(box, ndim) - inter);
}

float crop_overlap(const CropBox& crop, const CropBox& box, int ndim) {
  return intersection_volume(crop, box, ndim) / box_volume(box, ndim);
}

BBoxCropResult random_bbox_crop(const BBoxCropParams& p, const BBoxCropSample& s, SampleRng rng) {
  const int n = p.ndim;
  const int num_options = static_cast<int>(p.thresholds.size()) + (p.allow_no_crop ? 1 : 0);
  BBoxCropResult r;
  int& count = r.attempts;
  while (!r.found && (p.total_num_attempts < 0 || count < p.total_num_attempts)) {
    const int option = static_cast<int>(rng.below(num_options));
    if (option == static_cast<int>(p.thresholds.size())) {  // no crop
      r.window = CropBox{};
      for (int d = 0; d < n; ++d) r.window.hi[d] = s.fixed_shape ? s.input_shape[d] : 1.0f;
      r.boxes = s.boxes;
      r.indices.resize(s.boxes.size());
      std::iota(r.indices.begin(), r.indices.end(), 0);
      r.found = true;
      break;
    }
    const float threshold = p.thresholds[option];
    for (int i = 0; i < p.num_attempts && !r.found; ++i, ++count) {
      CropBox rel, out;
      if (!draw_window(p, s, rng, rel, out)) continue;
      float lo = 0, hi = 0;
      for (size_t b = 0; b < s.boxes.size(); ++b) {
        const float m =
            p.overlap_metric ? crop_overlap(rel, s.boxes[b], n) : crop_iou(rel, s.boxes[b], n);
        lo = b ? std::min(lo, m) : m;
        hi = b ? std::max(hi, m) : m;
      }
      const float metric = p.all_boxes_above_threshold ? lo : hi;
      const bool valid = metric >= threshold;
      if (metric <= r.best_metric && !valid && !s.boxes.empty()) continue;
      r.best_metric = metric;
      r.window = out;
      r.boxes.clear();
      r.indices.clear();
      for (size_t b = 0; b < s.boxes.size(); ++b) {
        const CropBox& box = s.boxes[b];
        const bool keep = p.prune_threshold >= 0
                              ? intersection_volume(rel, box, n) != 0 &&
                                    crop_overlap(rel, box, n) >= p.prune_threshold
                              : contains_centroid(rel, box, n);
        if (!keep) continue;
        r.boxes.push_back(remap(box, rel, n));
        r.indices.push_back(static_cast<int>(b));
      }
      // A sample without boxes takes the first window.
      r.found = s.boxes.empty() || (valid && !r.boxes.empty());
    }
  }
  return r;
}

}  // namespace sluice::kernels
