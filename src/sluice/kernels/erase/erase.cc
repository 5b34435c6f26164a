#include <algorithm>
#include <cstring>
#include <vector>

#include "sluice/kernels/erase/erase.h"

namespace sluice::kernels {
namespace {

// Element words of each size: erase moves bits only.
template <typename W>
void fill_box(W* out, const EraseSample& s, const EraseBox& b, const W* fill) {
  int64_t stride[kEraseMaxDims];
  stride[s.ndim - 1] = 1;
  for (int d = s.ndim - 2; d >= 0; --d) stride[d] = stride[d + 1] * s.extent[d + 1];
  for (int d = 0; d < s.ndim; ++d) {
    if (b.hi[d] <= b.lo[d]) return;
  }
  const int last = s.ndim - 1;
  int64_t idx[kEraseMaxDims];
  std::copy(b.lo, b.lo + s.ndim, idx);
  for (;;) {
    int64_t off = 0;
    for (int d = 0; d < last; ++d) off += idx[d] * stride[d];
    W* row = out + off;
    if (s.channel_dim < 0) {
      std::fill(row + b.lo[last], row + b.hi[last], fill[0]);
    } else if (s.channel_dim == last) {
      for (int64_t x = b.lo[last]; x < b.hi[last]; ++x) row[x] = fill[x];
    } else {
      std::fill(row + b.lo[last], row + b.hi[last], fill[idx[s.channel_dim]]);
    }
    int d = last - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < b.hi[d]) break;
      idx[d] = b.lo[d];
    }
    if (d < 0) return;
  }
}

template <typename W>
void erase_typed(const EraseSample& s, const EraseBox* boxes, const uint64_t* fill) {
  W* out = static_cast<W*>(s.out);
  if (s.out != s.in) std::memcpy(out, s.in, static_cast<size_t>(s.volume) * sizeof(W));
  if (s.volume == 0) return;
  std::vector<W> values(s.num_fill);
  for (int c = 0; c < s.num_fill; ++c) values[c] = static_cast<W>(fill[s.first_fill + c]);
  for (int k = 0; k < s.num_boxes; ++k) fill_box(out, s, boxes[s.first_box + k], values.data());
}

}  // namespace

void erase_cpu(const EraseSample& s, const EraseBox* boxes, const uint64_t* fill,
               size_t elem_size) {
  switch (elem_size) {
    case 1:
      return erase_typed<uint8_t>(s, boxes, fill);
    case 2:
      return erase_typed<uint16_t>(s, boxes, fill);
    case 4:
      return erase_typed<uint32_t>(s, boxes, fill);
    default:
      return erase_typed<uint64_t>(s, boxes, fill);
  }
}

}  // namespace sluice::kernels
