// copy_sample_cpu against byte-by-byte indexing: samples of mixed sizes (0 included) gathered
// in a shuffled order into a poisoned buffer whose gaps stay untouched.

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "sluice/kernels/gather/sample_gather.h"

namespace sluice::kernels {
namespace {

TEST(SampleGatherCpu, ShuffledSamplesMatchIndexing) {
  std::mt19937 gen(7);
  const int n = 23;
  std::vector<int64_t> size(n), src_off(n), dst_off(n);
  int64_t src_total = 0;
  for (int i = 0; i < n; ++i) {
    size[i] = i % 5 == 0 ? 0 : std::uniform_int_distribution<int64_t>(1, 300)(gen);
    src_off[i] = src_total + i % 3;  // odd offsets: no alignment assumed
    src_total = src_off[i] + size[i];
  }
  std::vector<uint8_t> src(src_total);
  for (auto& b : src) b = static_cast<uint8_t>(gen() | 1);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), gen);
  int64_t dst_total = 0;
  for (int k = 0; k < n; ++k) {
    dst_off[k] = dst_total + 2;  // a guard gap before each sample
    dst_total = dst_off[k] + size[order[k]];
  }
  std::vector<uint8_t> dst(dst_total + 2, 0);
  for (int k = 0; k < n; ++k) {
    const int i = order[k];
    copy_sample_cpu({dst.data() + dst_off[k], src.data() + src_off[i], size[i]});
  }
  std::vector<uint8_t> want(dst.size(), 0);
  for (int k = 0; k < n; ++k) {
    const int i = order[k];
    for (int64_t b = 0; b < size[i]; ++b) want[dst_off[k] + b] = src[src_off[i] + b];
  }
  EXPECT_EQ(dst, want);
}

}  // namespace
}  // namespace sluice::kernels
