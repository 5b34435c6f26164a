#pragma once
// The arguments of one_hot and lookup_table, read once per batch for their CPU and GPU classes:
// output shapes, type, layout and the bits of the values they write (lookup/lookup.h).

#include <cstdint>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/kernels/lookup/lookup.h"

namespace sluice {

struct OneHotPlan {
  kernels::OneHotParams params;
  DType out_type;
  std::vector<Shape> out_shapes;
  std::vector<int64_t> outer, inner;  // per sample
  Layout layout;
};
OneHotPlan plan_one_hot(const OpSpec& spec, const TensorList& in);

struct LookupPlan {
  DType out_type;
  int word_size;
  uint64_t default_bits;
  std::vector<uint8_t> table;  // table_size words
  int64_t table_size = 0;
};
// Checks the input type too.
LookupPlan plan_lookup(const OpSpec& spec, DType in_type);

}  // namespace sluice
