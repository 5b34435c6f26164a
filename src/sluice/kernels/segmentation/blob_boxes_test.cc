// blob_boxes: the blobs and boxes of a flood fill over face neighbours, in the raster order of the
// blobs' first elements, for 1- to 4-D masks of several types, regions of one value or of all
// values but the background; distinct_labels: the sorted set of values.

#include "sluice/kernels/segmentation/blob_boxes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <type_traits>
#include <vector>

namespace sluice::kernels {
namespace {

// Flood fill over face neighbours: the boxes of the blobs in the order of their first element.
template <typename T>
std::vector<int32_t> flood_fill_boxes(const std::vector<T>& m, const std::vector<int64_t>& shape,
                                      const BlobSelect& sel) {
  const int ndim = static_cast<int>(shape.size());
  const int64_t n = static_cast<int64_t>(m.size());
  std::vector<int64_t> stride(ndim, 1);
  for (int d = ndim - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
  const auto coord = [&](int64_t i, int d) { return i / stride[d] % shape[d]; };
  const T key = static_cast<T>(sel.value);
  std::vector<char> seen(n, 0);
  std::vector<int32_t> boxes;
  for (int64_t first = 0; first < n; ++first) {
    if (seen[first] || (m[first] == key) != sel.only_value) continue;
    std::vector<int32_t> lo(ndim, 1 << 30), hi(ndim, -1);
    std::vector<int64_t> stack{first};
    seen[first] = 1;
    while (!stack.empty()) {
      const int64_t i = stack.back();
      stack.pop_back();
      for (int d = 0; d < ndim; ++d) {
        lo[d] = std::min<int32_t>(lo[d], static_cast<int32_t>(coord(i, d)));
        hi[d] = std::max<int32_t>(hi[d], static_cast<int32_t>(coord(i, d) + 1));
        for (int step : {-1, 1}) {
          const int64_t c = coord(i, d) + step;
          const int64_t j = i + step * stride[d];
          if (c < 0 || c >= shape[d] || seen[j] || m[j] != m[first]) continue;
          seen[j] = 1;
          stack.push_back(j);
        }
      }
    }
    boxes.insert(boxes.end(), lo.begin(), lo.end());
    boxes.insert(boxes.end(), hi.begin(), hi.end());
  }
  return boxes;
}

template <typename T>
void check_random_masks(const std::vector<int64_t>& shape, int values, int trials) {
  std::mt19937 gen(static_cast<unsigned>(shape.size() * 31 + values));
  int64_t n = 1;
  for (auto s : shape) n *= s;
  using S = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;  // bool as 0 / 1 bytes
  std::vector<S> m(n);
  BlobBoxes got;
  for (int t = 0; t < trials; ++t) {
    // Sparse and dense masks: some trials mostly background, some mostly objects.
    const double p_bg = (t % 3) * 0.4;
    for (auto& v : m) {
      v = std::uniform_real_distribution<>(0, 1)(gen) < p_bg
              ? S(0)
              : static_cast<S>(gen() % static_cast<unsigned>(values));
    }
    for (BlobSelect sel : {BlobSelect{0, false}, BlobSelect{1, true}, BlobSelect{values - 1, true},
                           BlobSelect{1, false}}) {
      blob_boxes(m.data(), dtype_of<T>, shape, sel, got);
      const auto want = flood_fill_boxes(m, shape, sel);
      ASSERT_EQ(got.ndim, static_cast<int>(shape.size()));
      ASSERT_EQ(got.coords, want) << "trial " << t << " value " << sel.value << " only "
                                  << sel.only_value;
    }
  }
}

TEST(BlobBoxes, RandomMasksMatchFloodFill) {
  check_random_masks<uint8_t>({37}, 3, 6);
  check_random_masks<uint8_t>({23, 31}, 3, 9);
  check_random_masks<int32_t>({19, 1, 26}, 4, 6);
  check_random_masks<int16_t>({9, 11, 13}, 2, 6);
  check_random_masks<uint16_t>({5, 4, 6, 7}, 3, 6);
  check_random_masks<bool>({17, 21}, 2, 6);
}

TEST(BlobBoxes, DiagonalNeighboursAreSeparateBlobs) {
  // Ones on the diagonal, and a ring of twos that surrounds a zero: blobs by first element.
  const std::vector<int64_t> shape{5, 5};
  std::vector<uint8_t> m = {1, 0, 0, 0, 0,  //
                            0, 1, 2, 2, 2,  //
                            0, 0, 2, 0, 2,  //
                            0, 0, 2, 2, 2,  //
                            0, 0, 0, 0, 1};
  BlobBoxes b;
  blob_boxes(m.data(), DType::kUInt8, shape, {0, false}, b);
  const std::vector<int32_t> want = {0, 0, 1, 1, 1, 1, 2, 2, 1, 2, 4, 5, 4, 4, 5, 5};
  EXPECT_EQ(b.coords, want);
  EXPECT_EQ(b.count(), 4);
  EXPECT_EQ(b.volume(2), 9);
  blob_boxes(m.data(), DType::kUInt8, shape, {0, true}, b);
  EXPECT_EQ(b.count(), 3);  // the zeros of the top row, of the lower left, inside the ring
}

TEST(BlobBoxes, EmptyAndUniformMasks) {
  BlobBoxes b;
  std::vector<int32_t> m(12, 7);
  const std::vector<int64_t> empty{0, 4}, full{3, 4};
  blob_boxes(m.data(), DType::kInt32, empty, {0, false}, b);
  EXPECT_EQ(b.count(), 0);
  blob_boxes(m.data(), DType::kInt32, full, {7, true}, b);
  EXPECT_EQ(b.coords, (std::vector<int32_t>{0, 0, 3, 4}));
  blob_boxes(m.data(), DType::kInt32, full, {7, false}, b);
  EXPECT_EQ(b.count(), 0);
}

TEST(BlobBoxes, DistinctLabelsAndTypes) {
  std::vector<uint32_t> m = {5, 5, 0, 3, 3, 5, 0x80000000u};
  EXPECT_EQ(distinct_labels(m.data(), DType::kUInt32, 7),
            (std::vector<int>{static_cast<int>(0x80000000u), 0, 3, 5}));
  EXPECT_TRUE(blob_mask_type_supported(DType::kBool));
  EXPECT_FALSE(blob_mask_type_supported(DType::kInt64));
  EXPECT_FALSE(blob_mask_type_supported(DType::kFloat32));
  BlobBoxes b;
  const std::vector<int64_t> shape{7};
  EXPECT_THROW(blob_boxes(m.data(), DType::kFloat32, shape, {}, b), InvalidArgument);
}

}  // namespace
}  // namespace sluice::kernels
