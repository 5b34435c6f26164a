// Scratch layout and coefficient tables of the vectorised fixed-point resampler (scalar code,
// once per call); the passes that use them are in resample_fixed_point.cc.

#include "sluice/kernels/resize/detail/resample_fixed_point_tables.h"

#include <algorithm>

namespace sluice::kernels::detail::fixed_point {
namespace {

// The register shape for an instruction set and a channel count.
HShape h_shape(FixedPointIsa isa, int64_t channels) {
  const int lc = channels == 3 ? 4 : static_cast<int>(channels);
  if (isa == FixedPointIsa::kAvx2) return {8, lc, 16 / lc, 16};
  return {4, lc, 8 / lc, 8};
}

}  // namespace

Layout make_layout(const FixedPointJob& job, FixedPointIsa isa) {
  Layout l;
  const int64_t C = job.channels;
  const int64_t ow = job.h.out_count, oh = job.v.out_count;
  l.hs = h_shape(isa, C);
  l.row_bytes = job.in_width * C;
  l.h_groups = (job.h.max_taps + l.hs.taps - 1) / l.hs.taps;
  l.v_pairs = (job.v.max_taps + 1) / 2;
  // A tail copy starts at most (max_taps - 1) * C + load_bytes bytes before the row's end (a
  // pixel reads its tail copy only when a read from its first tap would pass the end) and is
  // followed by load_bytes of zeros.
  l.tail_bytes =
      std::min<int64_t>(l.row_bytes, (job.h.max_taps - 1) * C + l.hs.load_bytes) + l.hs.load_bytes;
  l.tmp_stride = (ow * C + 32 + 31) / 32 * 32;
  Scratch s;
  const size_t vec = static_cast<size_t>(l.hs.lanes) * 4;
  l.tables = take_coeff_tables(s, job.h, job.v);
  l.h_pixels = s.take(ow * sizeof(HPixel));
  l.h_coefs = s.take(ow * l.h_groups * 2 * vec);
  l.tails = s.take(4 * Scratch::align_up(l.tail_bytes));
  l.v_begin = s.take((oh + 1) * 4);
  l.v_pair = s.take(oh * l.v_pairs * sizeof(VPair));
  l.tmp = s.take((job.rows.end - job.rows.begin) * l.tmp_stride);
  l.bytes = s.bytes();
  return l;
}

int64_t build_h_table(const FixedPointJob& job, const Layout& l, const int32_t* first,
                      const int32_t* count, const int32_t* weights, HPixel* pixels,
                      int32_t* coefs) {
  const HShape s = l.hs;
  const int64_t C = job.channels, R = l.row_bytes;
  const int64_t group_bytes = s.taps * C;
  const int32_t ow = job.h.out_count, max_taps = job.h.max_taps;
  auto groups_of = [&s](int32_t n) { return (n + s.taps - 1) / s.taps; };
  auto passes_end = [&](int32_t x) {
    const int32_t g = groups_of(count[x]);
    return g > 0 && first[x] * C + (g - 1) * group_bytes + s.load_bytes > R;
  };
  int64_t tail = 0;
  for (int32_t x = 0; x < ow; x++) {
    if (passes_end(x)) tail = std::max(tail, R - first[x] * C);
  }
  int32_t lane_tap[8];  // first tap (of two) of each lane within a group
  for (int lane = 0; lane < s.lanes; lane++) lane_tap[lane] = 2 * (lane / s.lane_channels);
  for (int32_t x = 0; x < ow; x++) {
    const int32_t n = count[x];
    const int32_t groups = groups_of(n);
    const bool in_tail = passes_end(x);
    pixels[x] = {static_cast<int32_t>(first[x] * C - (in_tail ? R - tail : 0)), groups,
                 in_tail ? 1 : 0};
    const int32_t* k = weights + static_cast<int64_t>(x) * max_taps;
    for (int32_t g = 0; g < groups; g++) {
      int32_t* hi = coefs;
      int32_t* lo = coefs + s.lanes;
      coefs += 2 * s.lanes;
      for (int lane = 0; lane < s.lanes; lane++) {
        const int32_t t = g * s.taps + lane_tap[lane];
        const int32_t ka = t < n ? k[t] : 0;
        const int32_t kb = t + 1 < n ? k[t + 1] : 0;
        hi[lane] = pack_pair(ka >> kSplit, kb >> kSplit);
        lo[lane] = pack_pair(ka & kLowMask, kb & kLowMask);
      }
    }
  }
  return tail;
}

void build_v_table(const FixedPointJob& job, const Layout& l, const int32_t* first,
                   const int32_t* count, const int32_t* weights, const uint8_t* tmp, int32_t* begin,
                   VPair* pairs) {
  const int32_t oh = job.v.out_count, max_taps = job.v.max_taps;
  int32_t at = 0;
  for (int32_t y = 0; y < oh; y++) {
    begin[y] = at;
    const int32_t n = count[y];
    const int32_t* k = weights + static_cast<int64_t>(y) * max_taps;
    for (int32_t t = 0; t < n; t += 2) {
      const int64_t ia = first[y] + t - job.rows.begin;
      const int64_t ib = t + 1 < n ? ia + 1 : ia;
      const int32_t ka = k[t];
      const int32_t kb = t + 1 < n ? k[t + 1] : 0;
      VPair& p = pairs[at++];
      p.a = tmp + ia * l.tmp_stride;
      p.b = tmp + ib * l.tmp_stride;
      std::fill_n(p.k_hi, 4, pack_pair(ka >> kSplit, kb >> kSplit));
      std::fill_n(p.k_lo, 4, pack_pair(ka & kLowMask, kb & kLowMask));
    }
  }
  begin[oh] = at;
}

}  // namespace sluice::kernels::detail::fixed_point
