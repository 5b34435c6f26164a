#pragma once
// batch_permutation's draws: indices into a batch of `n` samples, from one random stream.

#include <cstdint>

#include "sluice/core/rng.h"

namespace sluice::kernels {

// Writes n indices in [0, n) to `out`: a uniformly drawn permutation, or, with
// `allow_repetitions`, n independent uniform draws. `no_fixed_points` (ignored for n == 1) also
// requires out[i] != i: a uniform derangement, or draws that skip their own index.
void batch_permutation_cpu(int32_t* out, int n, bool allow_repetitions, bool no_fixed_points,
                           SampleRng rng);

}  // namespace sluice::kernels
