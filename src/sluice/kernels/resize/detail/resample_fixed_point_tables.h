#pragma once
// Internal to resample_fixed_point.cc: the scratch layout and the coefficient tables of the
// vectorised fixed-point resampler, built once per call in scalar code
// (resample_fixed_point_tables.cc). The layouts are described in Note [Exact fixed point in
// 16-bit lanes] (resample_fixed_point.cc).

#include <cstddef>
#include <cstdint>

#include "sluice/kernels/resize/detail/resample_fixed_point.h"
#include "sluice/kernels/resize/detail/resize_scratch.h"

namespace sluice::kernels::detail::fixed_point {

// Each coefficient k = (hi << kSplit) + lo, two int16 halves (Note [Exact fixed point in
// 16-bit lanes]).
constexpr int kSplit = 15;
constexpr int32_t kLowMask = (1 << kSplit) - 1;
constexpr size_t kAlign = 64;
using Scratch = ScratchLayout<kAlign>;

inline int32_t pack_pair(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint16_t>(a)) |
                              (static_cast<uint32_t>(static_cast<uint16_t>(b)) << 16));
}

// Register shape of the horizontal pass for an instruction set and a channel count.
struct HShape {
  int lanes;          // int32 lanes of a vector: 4 (128-bit) or 8 (256-bit)
  int lane_channels;  // channels per cycle of lanes: C, or 4 for C = 3 (one lane idle)
  int taps;           // taps of one vector: 2 * lanes / lane_channels
  int load_bytes;     // bytes one vector reads from its first tap on
};

// Horizontal table entry of one output pixel; its coefficient vectors follow the previous
// pixel's (2 per group: hi, lo).
struct HPixel {
  int32_t offset;  // byte offset of the first read in the row (or in the row's tail copy)
  int32_t groups;  // coefficient vectors (pairs of hi / lo)
  int32_t tail;    // 1: read the tail copy
};

// Two taps (input rows of the intermediate) of one output row of the vertical pass.
struct VPair {
  const uint8_t* a;
  const uint8_t* b;
  alignas(16) int32_t k_hi[4];  // (hi(k_a), hi(k_b)) as int16 pairs, repeated
  int32_t k_lo[4];
};

// Scratch layout of one call.
struct Layout {
  HShape hs;
  int64_t row_bytes = 0;   // input bytes of a row: in_width * C
  int64_t tail_bytes = 0;  // capacity of one tail copy
  int64_t tmp_stride = 0;  // bytes between intermediate rows (row plus slack for 4-byte stores)
  int32_t h_groups = 0;    // upper bound of a pixel's groups
  int32_t v_pairs = 0;     // upper bound of an output row's pairs
  CoeffTableOffsets tables;
  size_t h_pixels = 0, h_coefs = 0, tails = 0;
  size_t v_begin = 0, v_pair = 0;
  size_t tmp = 0;
  size_t bytes = 0;
};

Layout make_layout(const FixedPointJob& job, FixedPointIsa isa);

// Fills the horizontal table; returns the length of the row tail that tail pixels read (0: none).
int64_t build_h_table(const FixedPointJob& job, const Layout& l, const int32_t* first,
                      const int32_t* count, const int32_t* weights, HPixel* pixels, int32_t* coefs);

// Fills the vertical table: pairs of output row y are pairs[begin[y] .. begin[y + 1]).
void build_v_table(const FixedPointJob& job, const Layout& l, const int32_t* first,
                   const int32_t* count, const int32_t* weights, const uint8_t* tmp, int32_t* begin,
                   VPair* pairs);

}  // namespace sluice::kernels::detail::fixed_point
