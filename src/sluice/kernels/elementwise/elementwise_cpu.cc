#include "sluice/kernels/elementwise/elementwise_cpu.h"

#include <cstring>

#include "sluice/kernels/elementwise/convert.h"

namespace sluice::kernels {

void cast_cpu(void* out, DType to, const void* in, DType from, int64_t n) {
  if (to == from) {
    std::memcpy(out, in, static_cast<size_t>(n) * dtype_size(to));
    return;
  }
  for (int64_t i = 0; i < n; ++i) convert_element(out, to, in, from, i);
}

}  // namespace sluice::kernels
