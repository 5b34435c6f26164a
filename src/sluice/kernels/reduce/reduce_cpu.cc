#include "sluice/kernels/reduce/reduce_cpu.h"

#include "sluice/core/error.h"

namespace sluice::kernels {

ReduceGeometry reduce_geometry(const Shape& in, uint64_t axis_mask) {
  ReduceGeometry g;
  int64_t stride = 1;
  // Walk from the innermost axis, merging each axis into the previous one of the same kind.
  int prev = -1;  // 0: kept, 1: reduced
  int64_t kept_e[kMaxReduceDims * 2], kept_s[kMaxReduceDims * 2];
  int64_t red_e[kMaxReduceDims * 2], red_s[kMaxReduceDims * 2];
  int nk = 0, nr = 0;
  for (int d = static_cast<int>(in.size()) - 1; d >= 0; --d) {
    const int64_t e = in[d];
    const int kind = (axis_mask >> d) & 1;
    if (e != 1) {
      if (kind == prev) {
        (kind ? red_e[nr - 1] : kept_e[nk - 1]) *= e;
      } else {
        SLUICE_CHECK(std::max(nk, nr) < kMaxReduceDims, InvalidArgument,
                     "reduction: too many alternating reduced and kept axes in shape ",
                     shape_to_string(in));
        if (kind) {
          red_e[nr] = e, red_s[nr] = stride, ++nr;
        } else {
          kept_e[nk] = e, kept_s[nk] = stride, ++nk;
        }
        prev = kind;
      }
    }
    stride *= e;
    (kind ? g.reduced_volume : g.out_volume) *= e;
  }
  // Stored outermost first.
  g.num_kept = nk;
  g.num_reduced = nr;
  for (int i = 0; i < nk; ++i) {
    g.kept_extent[i] = kept_e[nk - 1 - i], g.kept_stride[i] = kept_s[nk - 1 - i];
  }
  for (int i = 0; i < nr; ++i) {
    g.reduced_extent[i] = red_e[nr - 1 - i], g.reduced_stride[i] = red_s[nr - 1 - i];
  }
  return g;
}

namespace {

template <typename Out, typename In>
void reduce_typed(ReduceOp op, Out* out, const In* in, const ReduceGeometry& g, const float* mean,
                  int ddof) {
  using Acc = ReduceAcc<Out>;
  const bool innermost = g.num_reduced > 0 && g.reduced_stride[g.num_reduced - 1] == 1;
  const int64_t run = g.num_reduced > 0 ? g.reduced_extent[g.num_reduced - 1] : 1;
  const int64_t run_stride = g.num_reduced > 0 ? g.reduced_stride[g.num_reduced - 1] : 1;
  const int64_t runs = g.reduced_volume / (run > 0 ? run : 1);
  for (int64_t o = 0; o < g.out_volume; ++o) {
    const float m = mean ? mean[o] : 0.0f;
    Acc acc = reduce_neutral<Acc>(op);
    if (g.reduced_volume > 0) {
      const In* base = in + reduce_base_offset(g, o);
      // The outer reduced axes pick a run of the innermost one, which is walked directly.
      for (int64_t r = 0; r < runs; ++r) {
        const In* p = base + reduce_inner_offset(g, r * run);
        if (innermost) {
          for (int64_t k = 0; k < run; ++k) {
            acc = reduce_combine(op, acc, reduce_pre<Acc>(op, p[k], m));
          }
        } else {
          for (int64_t k = 0; k < run; ++k) {
            acc = reduce_combine(op, acc, reduce_pre<Acc>(op, p[k * run_stride], m));
          }
        }
      }
    }
    out[o] = reduce_post<Out>(op, acc, g.reduced_volume, ddof);
  }
}

}  // namespace

void reduce_cpu(ReduceOp op, void* out, DType out_type, const void* in, DType in_type,
                const ReduceGeometry& g, const float* mean, int ddof) {
  reduce_type_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    reduce_typed(op, static_cast<Out*>(out), static_cast<const In*>(in), g, mean, ddof);
  });
}

}  // namespace sluice::kernels
