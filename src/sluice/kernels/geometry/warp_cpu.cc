#include "sluice/kernels/geometry/warp.h"

namespace sluice::kernels {

void warp_cpu(const WarpSample& s, DType in_type, DType out_type) {
  float m[6];
  warp_matrix(s, m);
  warp_type_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    for (int64_t y = 0; y < s.out_h; ++y) {
      for (int64_t x = 0; x < s.out_w; ++x) warp_pixel<Out, In>(s, m, y, x);
    }
  });
}

}  // namespace sluice::kernels
