#include <cstring>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/kernels/slice/slice_dispatch.h"
#include "sluice/kernels/slice/slice_kernel.h"

namespace sluice::kernels {
namespace {

template <typename Out, typename In>
void slice_typed(const SliceDesc& d, SliceBorder border) {
  const int nd = d.ndim;
  // Per dimension and output coordinate: the input offset in elements, or -1 (fill).
  std::vector<std::vector<int64_t>> map(nd);
  int64_t stride = 1;
  for (int k = nd - 1; k >= 0; --k) {
    map[k].resize(static_cast<size_t>(d.out_shape[k]));
    for (int64_t o = 0; o < d.out_shape[k]; ++o) {
      const int64_t i = slice_border_index(d.anchor[k] + o, d.in_shape[k], border);
      map[k][o] = i < 0 ? -1 : i * stride;
    }
    stride *= d.in_shape[k];
  }
  int64_t outer = 1;
  for (int k = 0; k < nd - 1; ++k) outer *= d.out_shape[k];
  const int64_t inner = d.out_shape[nd - 1];
  if (outer == 0 || inner == 0) return;
  const In* in = static_cast<const In*>(d.in);
  const Out* fill = static_cast<const Out*>(d.fill);
  const bool inner_channels = d.channel_dim == nd - 1;
  Out* out = static_cast<Out*>(d.out);
  int64_t idx[kMaxSliceDims] = {};
  const std::vector<int64_t>& inner_map = map[nd - 1];
  for (int64_t o = 0; o < outer; ++o, out += inner) {
    int64_t base = 0;
    bool filled = false;
    for (int k = 0; k < nd - 1; ++k) {
      const int64_t m = map[k][idx[k]];
      filled |= m < 0;
      base += m;
    }
    const Out outer_fill =
        d.channel_dim >= 0 && !inner_channels ? fill[idx[d.channel_dim]] : fill[0];
    for (int64_t j = 0; j < inner; ++j) {
      const int64_t m = inner_map[j];
      if (filled || m < 0) {
        out[j] = inner_channels ? fill[j] : outer_fill;
      } else {
        out[j] = slice_convert<Out>(in[base + m]);
      }
    }
    for (int k = nd - 2; k >= 0; --k) {
      if (++idx[k] < d.out_shape[k]) break;
      idx[k] = 0;
    }
  }
}

}  // namespace

void slice_fill_value(double v, DType t, void* out) {
  const float f = static_cast<float>(v);
  dtype_dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T x;
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
      x = T(f);
    } else if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>(f);
    } else if constexpr (std::is_same_v<T, bool>) {
      x = f != 0;
    } else {
      x = static_cast<T>(static_cast<int64_t>(f));
    }
    std::memcpy(out, &x, sizeof(T));
  });
}

bool slice_type_supported(DType t) {
  return t != DType::kBool && t != DType::kBFloat16;
}

void slice_cpu(const SliceDesc& desc, DType in_type, DType out_type, SliceBorder border) {
  SLUICE_CHECK(desc.ndim >= 1 && desc.ndim <= kMaxSliceDims, InvalidArgument, "slice of ",
               desc.ndim, " dimensions");
  slice_dispatch(in_type, out_type, [&](auto out_tag, auto in_tag) {
    using Out = typename decltype(out_tag)::type;
    using In = typename decltype(in_tag)::type;
    slice_typed<Out, In>(desc, border);
  });
}

}  // namespace sluice::kernels
