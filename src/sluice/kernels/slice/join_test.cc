// Joining along an axis against numpy-style index arithmetic.

#include "sluice/kernels/slice/join.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace sluice::kernels {
namespace {

TEST(JoinCpu, ConcatenatesAlongTheMiddleAxis) {
  // a: [2, 3, 2], b: [2, 1, 2] int32, joined along axis 1 into [2, 4, 2].
  std::vector<int32_t> a(12), b(4), out(16, -1);
  std::iota(a.begin(), a.end(), 0);
  std::iota(b.begin(), b.end(), 100);
  const size_t e = sizeof(int32_t);
  join_cpu({out.data(), a.data(), 6 * e, 8 * e, 2});
  join_cpu({out.data() + 6, b.data(), 2 * e, 8 * e, 2});
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      for (int k = 0; k < 2; ++k) {
        const int32_t want = j < 3 ? a[(i * 3 + j) * 2 + k] : b[i * 2 + k];
        EXPECT_EQ(out[(i * 4 + j) * 2 + k], want) << i << " " << j << " " << k;
      }
    }
  }
}

TEST(JoinCpu, EmptyPiecesWriteNothing) {
  std::vector<uint8_t> out(4, 7);
  join_cpu({out.data(), nullptr, 0, 4, 3});
  join_cpu({out.data(), nullptr, 4, 4, 0});
  EXPECT_EQ(out, std::vector<uint8_t>(4, 7));
}

}  // namespace
}  // namespace sluice::kernels
