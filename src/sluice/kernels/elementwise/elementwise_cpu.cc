#include "sluice/kernels/elementwise/elementwise_cpu.h"

#include <cstring>

namespace sluice::kernels {

void cast_cpu(void* out, DType to, const void* in, DType from, int64_t n) {
  if (to == from) {
    std::memcpy(out, in, static_cast<size_t>(n) * dtype_size(to));
    return;
  }
  for (int64_t i = 0; i < n; ++i) convert_element(out, to, in, from, i);
}

void arithmetic_cpu(const ArithParams& p, void* out, const void* a, int64_t a_step, const void* b,
                    int64_t b_step, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    arith_element(p.op, p.compute, p.result, out, i, a, p.ta, i * a_step, b, p.tb, i * b_step,
                  p.scalar, p.b_is_scalar, p.scalar_left);
  }
}

}  // namespace sluice::kernels
