#pragma once
// The CPU reduction of one sample (the arithmetic is in reduce.h).

#include "sluice/kernels/reduce/reduce.h"

namespace sluice::kernels {

// Reduces one sample of geometry `g` from `in` into `out` (g.out_volume elements). `mean`: the
// mean each output element's deviations are taken from (variance, standard deviation), else
// unused; `ddof`: subtracted from the element count of the variance.
void reduce_cpu(ReduceOp op, void* out, DType out_type, const void* in, DType in_type,
                const ReduceGeometry& g, const float* mean = nullptr, int ddof = 0);

}  // namespace sluice::kernels
