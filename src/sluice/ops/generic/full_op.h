#pragma once
// What full, full_like, zeros, zeros_like, ones and ones_like share (DALI's ConstantValue): the
// operator class, which each of their files registers (CPU only, as in DALI), and their common
// arguments.

#include <cstdint>

#include "sluice/exec/operator.h"
#include "sluice/graph/op_schema.h"

namespace sluice {

enum class FullKind : uint8_t { kFull, kFullLike, kZeros, kZerosLike, kOnes, kOnesLike };

// `shape` (per sample) and `layout` for the operators that take them (full, zeros, ones).
OpSchema full_shape_args(OpSchema s);

template <FullKind Kind>
class FullCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override;
};

}  // namespace sluice
