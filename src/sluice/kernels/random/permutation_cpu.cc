#include <numeric>
#include <utility>

#include "sluice/kernels/random/permutation.h"

namespace sluice::kernels {

void batch_permutation_cpu(int32_t* out, int n, bool allow_repetitions, bool no_fixed_points,
                           SampleRng rng) {
  const bool derange = no_fixed_points && n > 1;
  if (allow_repetitions) {
    for (int i = 0; i < n; ++i) {
      if (!derange) {
        out[i] = static_cast<int32_t>(rng.below(static_cast<uint32_t>(n)));
      } else {
        const auto k = static_cast<int32_t>(rng.below(static_cast<uint32_t>(n - 1)));
        out[i] = k < i ? k : k + 1;
      }
    }
    return;
  }
  // Fisher-Yates; for a derangement, rejection keeps it uniform (about e tries on average).
  for (;;) {
    std::iota(out, out + n, 0);
    for (int i = n - 1; i > 0; --i) {
      std::swap(out[i], out[rng.below(static_cast<uint32_t>(i + 1))]);
    }
    if (!derange) return;
    bool fixed = false;
    for (int i = 0; i < n && !fixed; ++i) fixed = out[i] == i;
    if (!fixed) return;
  }
}

}  // namespace sluice::kernels
