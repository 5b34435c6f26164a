#include <algorithm>
#include <cstring>

#include "sluice/kernels/elementwise/convert.h"
#include "sluice/kernels/random/choice.h"

namespace sluice::kernels {

void choice_cpu(const ChoiceSample& s) {
  SampleRng rng = s.rng;
  for (int64_t j = 0; j < s.num_out; ++j) {
    int64_t k;
    if (s.cdf) {
      const double u = rng.uniform_double();
      k = std::upper_bound(s.cdf, s.cdf + s.num_choices, u) - s.cdf;
      // A draw above the last sum (rounding) and items of probability 0 at the end.
      while (k > 0 && (k >= s.num_choices || s.cdf[k] == s.cdf[k - 1])) --k;
    } else {
      k = static_cast<int64_t>(rng.uniform_double() * static_cast<double>(s.num_choices));
    }
    if (s.items) {
      std::memcpy(static_cast<char*>(s.out) + j * s.row_bytes,
                  static_cast<const char*>(s.items) + k * s.row_bytes, s.row_bytes);
    } else {
      store_wrap(s.out, s.index_type, j, k);
    }
  }
}

}  // namespace sluice::kernels
