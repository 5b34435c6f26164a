#include "sluice/kernels/slice/join.h"

#include <cstring>

namespace sluice::kernels {

void join_cpu(const JoinPiece& p) {
  if (p.width == 0) return;
  auto* out = static_cast<char*>(p.out);
  const auto* in = static_cast<const char*>(p.in);
  for (int64_t r = 0; r < p.rows; ++r) {
    std::memcpy(out + r * p.out_pitch, in + r * p.width, p.width);
  }
}

}  // namespace sluice::kernels
