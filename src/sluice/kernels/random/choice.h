#pragma once
// random.choice's draws: each output element is one of `num_choices` items, uniformly or by a
// cumulative distribution, from the sample's stream in order.

#include <cstdint>

#include "sluice/core/dtype.h"
#include "sluice/core/rng.h"

namespace sluice::kernels {

struct ChoiceSample {
  void* out;
  int64_t num_out;      // elements chosen
  int64_t num_choices;  // > 0
  const void* items;    // rows of `row_bytes` to copy; null: write the index, as `index_type`
  int64_t row_bytes;
  DType index_type;
  const double* cdf;  // num_choices cumulative probabilities, or null for uniform
  SampleRng rng;
};

void choice_cpu(const ChoiceSample& s);

}  // namespace sluice::kernels
