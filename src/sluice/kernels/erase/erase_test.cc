// erase_cpu against a per-element reference: random ranks, boxes (overlapping, empty, whole),
// single and per-channel fill values, element sizes 1 to 8; and DALI's fill value conversion.

#include "sluice/kernels/erase/erase.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace sluice::kernels {
namespace {

// What erase must give: element i is the fill value of its channel when a box covers it.
std::vector<uint16_t> reference(const std::vector<uint16_t>& in, const EraseSample& s,
                                const std::vector<EraseBox>& boxes,
                                const std::vector<uint64_t>& fill) {
  std::vector<uint16_t> out = in;
  for (int64_t i = 0; i < s.volume; ++i) {
    int64_t idx[kEraseMaxDims], rest = i;
    for (int d = s.ndim - 1; d >= 0; --d) {
      idx[d] = rest % s.extent[d];
      rest /= s.extent[d];
    }
    for (const EraseBox& b : boxes) {
      bool inside = true;
      for (int d = 0; d < s.ndim; ++d) inside = inside && idx[d] >= b.lo[d] && idx[d] < b.hi[d];
      if (inside) out[i] = static_cast<uint16_t>(fill[s.channel_dim < 0 ? 0 : idx[s.channel_dim]]);
    }
  }
  return out;
}

TEST(EraseCpu, MatchesPerElementReference) {
  std::mt19937 gen(11);
  for (int trial = 0; trial < 200; ++trial) {
    EraseSample s{};
    s.ndim = 1 + trial % kEraseMaxDims;
    s.volume = 1;
    for (int d = 0; d < s.ndim; ++d) {
      s.extent[d] = 1 + gen() % (s.ndim > 3 ? 4 : 9);
      s.volume *= s.extent[d];
    }
    std::vector<EraseBox> boxes(gen() % 4);
    for (EraseBox& b : boxes) {
      for (int d = 0; d < s.ndim; ++d) {
        b.lo[d] = gen() % (s.extent[d] + 1);
        b.hi[d] = b.lo[d] + gen() % (s.extent[d] + 1 - b.lo[d]);
      }
    }
    s.num_boxes = static_cast<int>(boxes.size());
    s.channel_dim = trial % 3 == 0 ? -1 : static_cast<int>(gen() % s.ndim);
    std::vector<uint64_t> fill(s.channel_dim < 0 ? 1 : s.extent[s.channel_dim]);
    for (auto& f : fill) f = gen() % 65536;
    s.num_fill = static_cast<int>(fill.size());
    std::vector<uint16_t> in(s.volume), out(s.volume, 0xDEAD);
    for (auto& v : in) v = static_cast<uint16_t>(gen());
    s.in = in.data();
    s.out = out.data();
    erase_cpu(s, boxes.data(), fill.data(), sizeof(uint16_t));
    ASSERT_EQ(out, reference(in, s, boxes, fill)) << "trial " << trial;
    // In place gives the same.
    s.out = in.data();
    erase_cpu(s, boxes.data(), fill.data(), sizeof(uint16_t));
    ASSERT_EQ(in, out) << "trial " << trial;
  }
}

TEST(EraseCpu, EveryElementSize) {
  const std::vector<EraseBox> boxes = {{{1, 0}, {3, 2}}};
  for (size_t size : {1, 2, 4, 8}) {
    std::vector<uint8_t> in(4 * 3 * size, 7), out(in.size());
    EraseSample s{out.data(), in.data(), 2, {4, 3}, 12, 0, 1, 0, 1, -1};
    const std::vector<uint64_t> fill = {0x0102030405060708ull};
    erase_cpu(s, boxes.data(), fill.data(), size);
    for (int64_t i = 0; i < 12; ++i) {
      const bool covered = i / 3 >= 1 && i / 3 < 3 && i % 3 < 2;
      for (size_t b = 0; b < size; ++b) {
        ASSERT_EQ(out[i * size + b], covered ? 8 - b : 7) << "size " << size << " element " << i;
      }
    }
  }
}

TEST(EraseCpu, FillValuesConvertAsDali) {
  EXPECT_EQ(erase_fill_bits<uint8_t>(300.0f), 44u);
  EXPECT_EQ(erase_fill_bits<uint8_t>(-3.7f), 253u);
  EXPECT_EQ(erase_fill_bits<int16_t>(70000.0f), 4464u);
  EXPECT_EQ(erase_fill_bits<uint16_t>(-1.5f), 65535u);
  EXPECT_EQ(erase_fill_bits<int32_t>(1e10f), 0x80000000u);
  EXPECT_EQ(erase_fill_bits<float>(1.5f), 0x3FC00000u);
  EXPECT_EQ(erase_fill_bits<float16>(1.5f), 0x3E00u);
}

}  // namespace
}  // namespace sluice::kernels
