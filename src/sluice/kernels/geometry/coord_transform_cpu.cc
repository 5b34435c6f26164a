#include "sluice/kernels/geometry/coord_transform.h"

namespace sluice::kernels {

void coord_transform_cpu(const void* in, DType in_type, void* out, DType out_type,
                         int64_t num_points, const CoordTransformParams& params) {
  coord_transform_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    const In* src = static_cast<const In*>(in);
    Out* dst = static_cast<Out*>(out);
    for (int64_t p = 0; p < num_points; ++p) {
      transform_point<Out, In>(params, src + p * params.in_dim, dst + p * params.out_dim);
    }
  });
}

}  // namespace sluice::kernels
