#include "sluice/kernels/segmentation/blob_boxes.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "sluice/core/error.h"

namespace sluice::kernels {
namespace {

template <typename Fn>
void mask_type_dispatch(DType t, Fn&& fn) {
  switch (t) {
    case DType::kBool:
      return fn(bool{});
    case DType::kUInt8:
      return fn(uint8_t{});
    case DType::kInt8:
      return fn(int8_t{});
    case DType::kUInt16:
      return fn(uint16_t{});
    case DType::kInt16:
      return fn(int16_t{});
    case DType::kUInt32:
      return fn(uint32_t{});
    case DType::kInt32:
      return fn(int32_t{});
    default:
      throw InvalidArgument(make_string("Unsupported input type: ", dtype_name(t)));
  }
}

// A run of equal selected elements [begin, end) of one row (a line along the innermost axis).
struct Run {
  int64_t begin, end;
};

class DisjointRuns {
 public:
  explicit DisjointRuns(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }

  int64_t find(int64_t i) {
    while (parent_[i] != i) {
      parent_[i] = parent_[parent_[i]];  // path halving
      i = parent_[i];
    }
    return i;
  }
  // The smaller index becomes the root, so each set's root is its first run in raster order.
  void join(int64_t a, int64_t b) {
    a = find(a);
    b = find(b);
    if (a < b) parent_[b] = a;
    if (b < a) parent_[a] = b;
  }

 private:
  std::vector<int64_t> parent_;
};

template <typename T>
void blob_boxes_typed(const T* data, std::span<const int64_t> shape, const BlobSelect& sel,
                      BlobBoxes& out) {
  const int ndim = static_cast<int>(shape.size());
  out.ndim = ndim;
  out.coords.clear();
  const int64_t width = shape[ndim - 1];
  int64_t rows = 1;
  for (int d = 0; d + 1 < ndim; ++d) rows *= shape[d];
  if (width == 0 || rows == 0) return;

  const T key = static_cast<T>(sel.value);
  const auto selected = [&](T v) { return (v == key) == sel.only_value; };
  std::vector<Run> runs;
  std::vector<int64_t> row_first(rows + 1);
  for (int64_t r = 0; r < rows; ++r) {
    row_first[r] = static_cast<int64_t>(runs.size());
    const T* p = data + r * width;
    for (int64_t x = 0; x < width;) {
      if (!selected(p[x])) {
        ++x;
        continue;
      }
      const int64_t begin = x;
      while (x < width && p[x] == p[begin]) ++x;
      runs.push_back({begin, x});
    }
  }
  row_first[rows] = static_cast<int64_t>(runs.size());

  // Joins the overlapping runs of equal value of row a and its neighbour b.
  DisjointRuns sets(runs.size());
  const auto join_rows = [&](int64_t a, int64_t b) {
    int64_t i = row_first[a], j = row_first[b];
    while (i < row_first[a + 1] && j < row_first[b + 1]) {
      const Run &ra = runs[i], &rb = runs[j];
      if (ra.begin < rb.end && rb.begin < ra.end &&
          data[a * width + ra.begin] == data[b * width + rb.begin]) {
        sets.join(i, j);
      }
      if (ra.end <= rb.end) {
        ++i;
      } else {
        ++j;
      }
    }
  };
  // Row strides of the outer axes, and the row's coordinates along them.
  std::vector<int64_t> stride(ndim, 1), pos(ndim, 0);
  for (int d = ndim - 3; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
  for (int64_t r = 0; r < rows; ++r) {
    for (int d = 0; d + 1 < ndim; ++d) {
      if (pos[d] > 0) join_rows(r - stride[d], r);
    }
    for (int d = ndim - 2; d >= 0 && ++pos[d] == shape[d]; --d) pos[d] = 0;
  }

  // Blobs numbered by their first run; boxes grown run by run.
  std::vector<int64_t> blob(runs.size());
  std::fill(pos.begin(), pos.end(), 0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = row_first[r]; k < row_first[r + 1]; ++k) {
      const int64_t root = sets.find(k);
      int32_t* box;
      if (root == k) {
        blob[k] = out.count();
        out.coords.resize(out.coords.size() + 2 * ndim);
        box = out.coords.data() + 2 * ndim * blob[k];
        for (int d = 0; d + 1 < ndim; ++d) {
          box[d] = static_cast<int32_t>(pos[d]);
          box[ndim + d] = static_cast<int32_t>(pos[d] + 1);
        }
        box[ndim - 1] = static_cast<int32_t>(runs[k].begin);
        box[2 * ndim - 1] = static_cast<int32_t>(runs[k].end);
        continue;
      }
      blob[k] = blob[root];
      box = out.coords.data() + 2 * ndim * blob[k];
      for (int d = 0; d + 1 < ndim; ++d) {
        box[d] = std::min(box[d], static_cast<int32_t>(pos[d]));
        box[ndim + d] = std::max(box[ndim + d], static_cast<int32_t>(pos[d] + 1));
      }
      box[ndim - 1] = std::min(box[ndim - 1], static_cast<int32_t>(runs[k].begin));
      box[2 * ndim - 1] = std::max(box[2 * ndim - 1], static_cast<int32_t>(runs[k].end));
    }
    for (int d = ndim - 2; d >= 0 && ++pos[d] == shape[d]; --d) pos[d] = 0;
  }
}

}  // namespace

int64_t BlobBoxes::volume(int64_t b) const {
  int64_t v = 1;
  for (int d = 0; d < ndim; ++d) v *= hi(b)[d] - lo(b)[d];
  return v;
}

bool blob_mask_type_supported(DType t) {
  return t == DType::kBool || t == DType::kUInt8 || t == DType::kInt8 || t == DType::kUInt16 ||
         t == DType::kInt16 || t == DType::kUInt32 || t == DType::kInt32;
}

void blob_boxes(const void* mask, DType t, std::span<const int64_t> shape, const BlobSelect& sel,
                BlobBoxes& out) {
  SLUICE_CHECK(!shape.empty(), InvalidArgument, "blob_boxes needs at least one dimension");
  mask_type_dispatch(t, [&](auto tag) {
    using T = decltype(tag);
    blob_boxes_typed(static_cast<const T*>(mask), shape, sel, out);
  });
}

std::vector<int> distinct_labels(const void* mask, DType t, int64_t n) {
  std::unordered_set<int> seen;
  mask_type_dispatch(t, [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(mask);
    for (int64_t i = 0; i < n; ++i) {
      if (i == 0 || p[i] != p[i - 1]) seen.insert(static_cast<int>(p[i]));  // once per run
    }
  });
  std::vector<int> out(seen.begin(), seen.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace sluice::kernels
