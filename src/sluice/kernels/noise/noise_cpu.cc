#include "sluice/kernels/noise/noise.h"

namespace sluice::kernels {

void noise_cpu(NoiseKind kind, const NoiseSample& s, DType t) {
  const int size = static_cast<int>(dtype_size(t));
  for (int64_t i = 0; i < s.n; ++i) noise_element(kind, s, t, size, i);
}

}  // namespace sluice::kernels
