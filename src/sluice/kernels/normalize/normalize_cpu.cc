#include "sluice/kernels/normalize/normalize.h"

namespace sluice::kernels {

NormalizeGeometry normalize_geometry(const Shape& in, uint64_t axis_mask) {
  // Innermost first while merging, stored outermost first.
  int64_t extent[kMaxReduceDims], pstride[kMaxReduceDims];
  int n = 0, prev = -1;
  int64_t param = 1;
  NormalizeGeometry g;
  for (int d = static_cast<int>(in.size()) - 1; d >= 0; --d) {
    const int64_t e = in[d];
    const int kind = (axis_mask >> d) & 1;
    g.volume *= e;
    if (e == 1) continue;
    if (kind == prev) {
      extent[n - 1] *= e;
    } else {
      SLUICE_CHECK(n < kMaxReduceDims, InvalidArgument,
                   "normalize: too many alternating normalized and kept axes in shape ",
                   shape_to_string(in));
      extent[n] = e;
      pstride[n] = kind ? 0 : param;
      ++n;
      prev = kind;
    }
    if (!kind) param *= e;
  }
  g.ndim = n;
  g.params = param;
  for (int i = 0; i < n; ++i) {
    g.extent[i] = extent[n - 1 - i];
    g.param_stride[i] = pstride[n - 1 - i];
  }
  return g;
}

void normalize_cpu(void* out, DType out_type, const void* in, DType in_type,
                   const NormalizeGeometry& g, const float* mean, const float* inv, float shift) {
  normalize_type_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    const In* src = static_cast<const In*>(in);
    Out* dst = static_cast<Out*>(out);
    // The innermost dimension is walked directly; its parameter stride is 0 or 1.
    const int64_t inner = g.ndim > 0 ? g.extent[g.ndim - 1] : 1;
    const int64_t step = g.ndim > 0 ? g.param_stride[g.ndim - 1] : 0;
    for (int64_t base = 0; base < g.volume; base += inner) {
      const int64_t p0 = normalize_param_index(g, base);
      for (int64_t k = 0; k < inner; ++k) {
        const int64_t p = p0 + k * step;
        dst[base + k] = normalize_convert<Out>(
            normalize_value(static_cast<float>(src[base + k]), mean[p], inv[p], shift));
      }
    }
  });
}

void normalize_fold_cpu(const NormalizeFold& fold, const NormalizeFoldParams& params) {
  for (int64_t p = 0; p < fold.size; ++p) {
    fold.out[p] = normalize_fold_value(fold.parts, fold.num_parts, p, params);
  }
}

}  // namespace sluice::kernels
