#include "sluice/kernels/elementwise/convert.h"
#include "sluice/kernels/random/random.h"

namespace sluice::kernels {

void random_cpu(RandomDist d, const RandomSample& s, DType out_type, const float* values,
                int num_values) {
  SampleRng rng = s.rng;
  for (int64_t i = 0; i < s.n; ++i) {
    store_sat(s.out, out_type, i, random_value(d, rng.next_u32(), s.p0, s.p1, values, num_values));
  }
}

}  // namespace sluice::kernels
