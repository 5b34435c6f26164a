// The CPU arithmetic loops for the floating compute types (see arithmetic_cpu_tile.h).

#include "sluice/kernels/elementwise/arithmetic_cpu_tile.h"

namespace sluice::kernels::arith {

template void apply_tile<float>(ArithOp, void*, const TileOperand<float>*, int);
template void apply_tile<double>(ArithOp, void*, const TileOperand<double>*, int);

}  // namespace sluice::kernels::arith
