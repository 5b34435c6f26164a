// The CPU arithmetic loops for the integral compute types (see arithmetic_cpu_tile.h).

#include "sluice/kernels/elementwise/arithmetic_cpu_tile.h"

namespace sluice::kernels::arith {

template void apply_tile<bool>(ArithOp, void*, const TileOperand<bool>*, int);
template void apply_tile<uint8_t>(ArithOp, void*, const TileOperand<uint8_t>*, int);
template void apply_tile<int8_t>(ArithOp, void*, const TileOperand<int8_t>*, int);
template void apply_tile<uint16_t>(ArithOp, void*, const TileOperand<uint16_t>*, int);
template void apply_tile<int16_t>(ArithOp, void*, const TileOperand<int16_t>*, int);
template void apply_tile<uint32_t>(ArithOp, void*, const TileOperand<uint32_t>*, int);
template void apply_tile<int32_t>(ArithOp, void*, const TileOperand<int32_t>*, int);
template void apply_tile<int64_t>(ArithOp, void*, const TileOperand<int64_t>*, int);
template void apply_tile<uint64_t>(ArithOp, void*, const TileOperand<uint64_t>*, int);
template void apply_tile<Int65>(ArithOp, void*, const TileOperand<Int65>*, int);

}  // namespace sluice::kernels::arith
