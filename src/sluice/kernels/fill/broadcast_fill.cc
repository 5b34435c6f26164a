#include "sluice/kernels/fill/broadcast_fill.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace sluice::kernels {

bool can_broadcast(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return false;
  }
  return true;
}

void broadcast_fill_cpu(void* out, const Shape& out_shape, const void* value,
                        const Shape& value_shape, size_t elem_size) {
  const int nd = static_cast<int>(out_shape.size());
  const int vd = static_cast<int>(value_shape.size());
  // The value's element stride along each output dimension (0 where it repeats).
  std::vector<int64_t> stride(nd, 0);
  int64_t s = 1;
  for (int i = 0; i < vd; ++i) {
    const int vdim = vd - 1 - i, odim = nd - 1 - i;
    if (odim >= 0 && value_shape[vdim] != 1) stride[odim] = s;
    s *= value_shape[vdim];
  }
  const int64_t n = volume(out_shape);
  if (n == 0) return;
  auto* dst = static_cast<uint8_t*>(out);
  const auto* src = static_cast<const uint8_t*>(value);
  std::vector<int64_t> idx(nd, 0);
  int64_t off = 0;  // the value element of output element i
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst + i * elem_size, src + off * elem_size, elem_size);
    for (int d = nd - 1; d >= 0; --d) {
      off += stride[d];
      if (++idx[d] < out_shape[d]) break;
      off -= stride[d] * idx[d];
      idx[d] = 0;
    }
  }
}

}  // namespace sluice::kernels
