#include "sluice/kernels/elementwise/convert.h"
#include "sluice/kernels/random/random.h"

namespace sluice::kernels {

void random_cpu(RandomDist d, const RandomSample& s, DType out_type, const float* values) {
  SampleRng rng = s.rng;
  const float* own = values ? values + s.first_value : nullptr;
  for (int64_t i = 0; i < s.n; ++i) {
    store_sat(s.out, out_type, i, random_value(d, rng.next_u32(), s.p0, s.p1, own, s.num_values));
  }
}

}  // namespace sluice::kernels
