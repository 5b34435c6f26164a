#include "sluice/kernels/elementwise/convert.h"
#include "sluice/kernels/random/distributions.h"
#include "sluice/kernels/random/random.h"

namespace sluice::kernels {

void random_cpu(RandomDist d, const RandomSample& s, DType out_type, const float* values) {
  SampleRng rng = s.rng;
  const float* own = values ? values + s.first_value : nullptr;
  if (d == RandomDist::kBeta) {
    auto draw = [&rng] { return rng.next_u32(); };
    for (int64_t i = 0; i < s.n; ++i) store_sat(s.out, out_type, i, beta_value(s.p0, s.p1, draw));
    return;
  }
  const bool two = draws_per_value(d) == 2;
  for (int64_t i = 0; i < s.n; ++i) {
    const uint32_t u = rng.next_u32();
    const uint32_t u2 = two ? rng.next_u32() : 0;
    store_sat(s.out, out_type, i, random_value(d, u, u2, s.p0, s.p1, own, s.num_values));
  }
}

}  // namespace sluice::kernels
