#pragma once
// Connected blobs of N-D label masks and their bounding boxes, for
// segmentation.random_object_bbox. A blob is a region of equal elements joined through faces
// (2 neighbours per axis, as DALI's labelling); it is found by union-find over the runs of equal
// elements along the innermost axis, so the work grows with the runs, not the elements.

#include <cstdint>
#include <span>
#include <vector>

#include "sluice/core/dtype.h"

namespace sluice::kernels {

// The elements that form blobs: those equal to `value` (`only_value`), else all but `value`.
// Values compare in the mask's type (`value` converted to it), as DALI compares them.
struct BlobSelect {
  int64_t value = 0;
  bool only_value = true;
};

// Bounding boxes of blobs in the raster order of their first element. Blob b spans
// [lo, hi): lo[d] at coords[2 * ndim * b + d], hi[d] at coords[2 * ndim * b + ndim + d].
struct BlobBoxes {
  int ndim = 0;
  std::vector<int32_t> coords;

  int64_t count() const { return ndim ? static_cast<int64_t>(coords.size()) / (2 * ndim) : 0; }
  const int32_t* lo(int64_t b) const { return coords.data() + 2 * ndim * b; }
  const int32_t* hi(int64_t b) const { return lo(b) + ndim; }
  // The box's volume (not the blob's element count: DALI ranks blobs by their boxes).
  int64_t volume(int64_t b) const;
};

// Whether blob_boxes() and distinct_labels() take masks of type t (DALI's: bool, 8-, 16- and
// 32-bit integers).
bool blob_mask_type_supported(DType t);

// The blobs of `mask` (type t, `shape` of 1 or more dimensions, row-major) selected by `sel`.
void blob_boxes(const void* mask, DType t, std::span<const int64_t> shape, const BlobSelect& sel,
                BlobBoxes& out);

// The distinct values of `mask` (n elements of type t) converted to int, in increasing order.
std::vector<int> distinct_labels(const void* mask, DType t, int64_t n);

}  // namespace sluice::kernels
