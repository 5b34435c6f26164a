#include "sluice/kernels/lookup/lookup.h"

namespace sluice::kernels {

void one_hot_cpu(const OneHotSample& s, const OneHotParams& p) {
  const int64_t n = s.outer * p.classes * s.inner;
  for (int64_t o = 0; o < n; ++o) one_hot_element(s, p, o);
}

void lookup_cpu(const LookupSample& s, const LookupParams& p) {
  for (int64_t i = 0; i < s.n; ++i) lookup_element(s, p, i);
}

}  // namespace sluice::kernels
