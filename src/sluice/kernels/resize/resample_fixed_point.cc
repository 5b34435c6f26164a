#include "sluice/kernels/resize/detail/resample_fixed_point.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "sluice/kernels/resize/detail/channel_dispatch.h"
#include "sluice/kernels/resize/detail/resample_fixed_point_tables.h"
#include "sluice/kernels/resize/detail/resize_pixel.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SLUICE_RESAMPLE_X86 1
#include <immintrin.h>
#define SLUICE_AVX2 __attribute__((target("avx2")))
#endif

// Note [Exact fixed point in 16-bit lanes]
// Pillow's uint8 resampling sums v * k in int32, v in [0, 255] and k a coefficient with 22
// fraction bits (|k| < 2^23), then shifts by 22 and clips. The fastest exact multiply-add the
// x86 baseline has is pmaddwd (int16 x int16 pairs summed into int32), so each coefficient is
// split as k = hi * 2^15 + lo with hi = k >> 15 in [-256, 255] and lo = k & 0x7fff in
// [0, 32767], both int16; pairs of taps share a pmaddwd (v_a * hi_a + v_b * hi_b, and the same
// for lo), and the two sums are joined as (sum_hi << 15) + sum_lo. The lanes add and shift in
// wrapping 32-bit arithmetic, which is exact modulo 2^32 whatever the order of the terms; the
// true sum plus Pillow's 2^21 lies in int32 (sum |k| < 2^23, see kCoeffFractionBits), so the
// result is the scalar reference's value exactly, intermediate wraps included. Clipping is a
// saturating pack (int32 -> int16 -> uint8), equal to clip8 on the values the shift produces.
//
// Layouts. The horizontal pass computes one output pixel of 4 (AVX2) or 2 (SSE2) input rows at a
// time, the rows sharing the coefficient loads. A vector holds, per 32-bit lane, one channel of a
// pair of taps, channels cycling along the lanes (C' = C lanes per cycle, or 4 for three
// channels, one lane idle), so that one pmaddwd covers 8 / C' (128-bit) or 16 / C' (256-bit)
// taps of all channels; the per-pixel coefficient vectors are laid out the same way once per call
// and the lanes of each channel are added at the end. Reads never pass the end of an input row:
// an output pixel whose last vector would is read from a zero-padded copy of the row's tail. The
// vertical pass computes 16 or 32 bytes of an output row at a time, interleaving two input rows
// byte by byte so that one pmaddwd applies two taps, and keeps all taps' sums in registers.

namespace sluice::kernels::detail {

using namespace fixed_point;  // NOLINT: the layout and tables, internal to this resampler

namespace {

#if defined(SLUICE_RESAMPLE_X86)

// ---- SSE2 ----

// Taps of one group as int16 pairs in the lane order of Note [Exact fixed point in 16-bit
// lanes]: lane l holds channel l % C' of taps 2 (l / C') and 2 (l / C') + 1. Reads 8 bytes.
template <int C>
inline __m128i load_taps_sse2(const uint8_t* p) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i x = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  if constexpr (C == 1) {
    return _mm_unpacklo_epi8(x, zero);
  } else if constexpr (C == 2) {
    const __m128i w = _mm_unpacklo_epi8(x, zero);                    // a0 b0 a1 b1 a2 b2 a3 b3
    return _mm_shufflehi_epi16(_mm_shufflelo_epi16(w, 0xD8), 0xD8);  // a0 a1 b0 b1 a2 a3 ...
  } else {
    // C = 3: r0 g0 b0 r1 g1 b1 with r1 g1 b1 -> r0 r1 g0 g1 b0 b1 (r1 r2 idle)
    // C = 4: r0 g0 b0 a0 with r1 g1 b1 a1 -> r0 r1 g0 g1 b0 b1 a0 a1
    return _mm_unpacklo_epi8(_mm_unpacklo_epi8(x, _mm_srli_si128(x, C)), zero);
  }
}

// Pillow's 1/2 once per channel: in the first lane of each channel.
template <int C>
inline __m128i half_lanes_sse2() {
  constexpr int lc = C == 3 ? 4 : C;
  return _mm_setr_epi32(kFixedHalf, lc > 1 ? kFixedHalf : 0, lc > 2 ? kFixedHalf : 0,
                        lc > 3 ? kFixedHalf : 0);
}

// Adds the lanes of each channel into lanes 0 .. C - 1.
template <int C>
inline __m128i fold_channels(__m128i acc) {
  if constexpr (C == 1) {
    acc = _mm_add_epi32(acc, _mm_srli_si128(acc, 8));
    acc = _mm_add_epi32(acc, _mm_srli_si128(acc, 4));
  } else if constexpr (C == 2) {
    acc = _mm_add_epi32(acc, _mm_srli_si128(acc, 8));
  }
  return acc;
}

inline __m128i join_split(__m128i hi, __m128i lo) {
  return _mm_add_epi32(_mm_slli_epi32(hi, kSplit), lo);
}

// Writes the pixel in lanes 0 .. C - 1 as C bytes, and up to 4 - C bytes of garbage after it
// (the next pixel or the intermediate row's slack).
inline void store_pixel(uint8_t* dst, __m128i acc) {
  __m128i v = _mm_srai_epi32(acc, kCoeffFractionBits);
  v = _mm_packs_epi32(v, v);
  v = _mm_packus_epi16(v, v);
  const int32_t bytes = _mm_cvtsi128_si32(v);
  std::memcpy(dst, &bytes, 4);
}

// Horizontal pass of 2 input rows (repeated row pointers, with equal destinations, are allowed).
// Each coefficient vector is loaded once for the 2 rows.
template <int C>
void h_rows_sse2(const HPixel* pixels, const int32_t* coefs, int32_t ow, const uint8_t* const* rows,
                 const uint8_t* const* tails, uint8_t* const* dsts) {
  constexpr int kLaneChannels = C == 3 ? 4 : C;
  constexpr int64_t kGroupBytes = 8 / kLaneChannels * C;
  const __m128i zero = _mm_setzero_si128();
  const __m128i half = half_lanes_sse2<C>();
  const auto* k = reinterpret_cast<const __m128i*>(coefs);
  for (int32_t x = 0; x < ow; x++) {
    const HPixel px = pixels[x];
    const uint8_t* p0 = (px.tail ? tails[0] : rows[0]) + px.offset;
    const uint8_t* p1 = (px.tail ? tails[1] : rows[1]) + px.offset;
    __m128i h0 = zero, l0 = half, h1 = zero, l1 = half;
    for (int g = 0; g < px.groups; g++) {
      const __m128i kh = _mm_load_si128(k);
      const __m128i kl = _mm_load_si128(k + 1);
      k += 2;
      const __m128i d0 = load_taps_sse2<C>(p0);
      const __m128i d1 = load_taps_sse2<C>(p1);
      p0 += kGroupBytes;
      p1 += kGroupBytes;
      h0 = _mm_add_epi32(h0, _mm_madd_epi16(d0, kh));
      l0 = _mm_add_epi32(l0, _mm_madd_epi16(d0, kl));
      h1 = _mm_add_epi32(h1, _mm_madd_epi16(d1, kh));
      l1 = _mm_add_epi32(l1, _mm_madd_epi16(d1, kl));
    }
    store_pixel(dsts[0] + int64_t{x} * C, fold_channels<C>(join_split(h0, l0)));
    store_pixel(dsts[1] + int64_t{x} * C, fold_channels<C>(join_split(h1, l1)));
  }
}

// Vertical pass: 16 output bytes at `e` of one output row.
inline __m128i v_block_sse2(const VPair* p, const VPair* end, int64_t e) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i half = _mm_set1_epi32(kFixedHalf);
  __m128i h0 = zero, h1 = zero, h2 = zero, h3 = zero;
  __m128i l0 = half, l1 = half, l2 = half, l3 = half;
  for (; p != end; ++p) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p->a + e));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p->b + e));
    const __m128i kh = _mm_load_si128(reinterpret_cast<const __m128i*>(p->k_hi));
    const __m128i kl = _mm_load_si128(reinterpret_cast<const __m128i*>(p->k_lo));
    const __m128i ab_lo = _mm_unpacklo_epi8(a, b);  // a0 b0 a1 b1 ... a7 b7
    const __m128i ab_hi = _mm_unpackhi_epi8(a, b);
    const __m128i q0 = _mm_unpacklo_epi8(ab_lo, zero);  // (a0, b0) .. (a3, b3) as int16
    const __m128i q1 = _mm_unpackhi_epi8(ab_lo, zero);
    const __m128i q2 = _mm_unpacklo_epi8(ab_hi, zero);
    const __m128i q3 = _mm_unpackhi_epi8(ab_hi, zero);
    h0 = _mm_add_epi32(h0, _mm_madd_epi16(q0, kh));
    l0 = _mm_add_epi32(l0, _mm_madd_epi16(q0, kl));
    h1 = _mm_add_epi32(h1, _mm_madd_epi16(q1, kh));
    l1 = _mm_add_epi32(l1, _mm_madd_epi16(q1, kl));
    h2 = _mm_add_epi32(h2, _mm_madd_epi16(q2, kh));
    l2 = _mm_add_epi32(l2, _mm_madd_epi16(q2, kl));
    h3 = _mm_add_epi32(h3, _mm_madd_epi16(q3, kh));
    l3 = _mm_add_epi32(l3, _mm_madd_epi16(q3, kl));
  }
  const __m128i r0 = _mm_srai_epi32(join_split(h0, l0), kCoeffFractionBits);
  const __m128i r1 = _mm_srai_epi32(join_split(h1, l1), kCoeffFractionBits);
  const __m128i r2 = _mm_srai_epi32(join_split(h2, l2), kCoeffFractionBits);
  const __m128i r3 = _mm_srai_epi32(join_split(h3, l3), kCoeffFractionBits);
  return _mm_packus_epi16(_mm_packs_epi32(r0, r1), _mm_packs_epi32(r2, r3));
}

void v_rows_sse2(const int32_t* begin, const VPair* pairs, int32_t oh, int64_t row_len,
                 uint8_t* out, int64_t out_stride) {
  constexpr int64_t kBlock = 16;
  for (int32_t y = 0; y < oh; y++) {
    const VPair* p = pairs + begin[y];
    const VPair* end = pairs + begin[y + 1];
    uint8_t* dst = out + y * out_stride;
    if (row_len < kBlock) {
      // The intermediate rows have 32 bytes of slack; the output row has not.
      alignas(16) uint8_t buf[kBlock];
      _mm_store_si128(reinterpret_cast<__m128i*>(buf), v_block_sse2(p, end, 0));
      std::memcpy(dst, buf, static_cast<size_t>(row_len));
      continue;
    }
    int64_t e = 0;
    for (; e + kBlock <= row_len; e += kBlock) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + e), v_block_sse2(p, end, e));
    }
    if (e < row_len) {  // the last block again, ending at the row's end
      e = row_len - kBlock;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + e), v_block_sse2(p, end, e));
    }
  }
}

// ---- AVX2 ----

// pshufb control of the 256-bit group of C channels: from 16 input bytes (both 128-bit halves),
// lane l takes channel l % C' of taps 2 (l / C') and 2 (l / C') + 1, zero-extended.
template <int C>
constexpr std::array<int8_t, 32> avx2_tap_shuffle() {
  constexpr int lc = C == 3 ? 4 : C;
  std::array<int8_t, 32> m{};
  for (int lane = 0; lane < 8; lane++) {
    const int c = lane % lc, p = lane / lc;
    for (int t = 0; t < 2; t++) {
      m[4 * lane + 2 * t] = static_cast<int8_t>(c < C ? (2 * p + t) * C + c : -128);
      m[4 * lane + 2 * t + 1] = -128;
    }
  }
  return m;
}

// Stores one output pixel of 4 rows from their accumulators ((sum_hi << 15) + sum_lo per lane):
// C bytes each, and up to 4 - C bytes of garbage after them (the next pixel or the intermediate
// row's slack).
template <int C>
SLUICE_AVX2 inline void store_4_rows(uint8_t* dst0, uint8_t* dst1, uint8_t* dst2, uint8_t* dst3,
                                     __m256i a0, __m256i a1, __m256i a2, __m256i a3) {
  // Halves added: row 0 | row 1, and row 2 | row 3.
  __m256i t01 = _mm256_add_epi32(_mm256_permute2x128_si256(a0, a1, 0x20),
                                 _mm256_permute2x128_si256(a0, a1, 0x31));
  __m256i t23 = _mm256_add_epi32(_mm256_permute2x128_si256(a2, a3, 0x20),
                                 _mm256_permute2x128_si256(a2, a3, 0x31));
  if constexpr (C <= 2) {
    t01 = _mm256_add_epi32(t01, _mm256_srli_si256(t01, 8));
    t23 = _mm256_add_epi32(t23, _mm256_srli_si256(t23, 8));
  }
  if constexpr (C == 1) {
    t01 = _mm256_add_epi32(t01, _mm256_srli_si256(t01, 4));
    t23 = _mm256_add_epi32(t23, _mm256_srli_si256(t23, 4));
  }
  t01 = _mm256_srai_epi32(t01, kCoeffFractionBits);
  t23 = _mm256_srai_epi32(t23, kCoeffFractionBits);
  // Bytes per 128-bit half: row 0, row 2 (repeated) | row 1, row 3.
  const __m256i w = _mm256_packs_epi32(t01, t23);
  const __m256i b = _mm256_packus_epi16(w, w);
  const __m128i lo = _mm256_castsi256_si128(b);
  const __m128i hi = _mm256_extracti128_si256(b, 1);
  const int32_t r0 = _mm_cvtsi128_si32(lo), r2 = _mm_extract_epi32(lo, 1);
  const int32_t r1 = _mm_cvtsi128_si32(hi), r3 = _mm_extract_epi32(hi, 1);
  std::memcpy(dst0, &r0, 4);
  std::memcpy(dst1, &r1, 4);
  std::memcpy(dst2, &r2, 4);
  std::memcpy(dst3, &r3, 4);
}

// Horizontal pass of 4 input rows (repeated row pointers, with equal destinations, are allowed).
// Each coefficient vector is loaded once for the 4 rows.
template <int C>
SLUICE_AVX2 void h_rows_avx2(const HPixel* pixels, const int32_t* coefs, int32_t ow,
                             const uint8_t* const* rows, const uint8_t* const* tails,
                             uint8_t* const* dsts) {
  constexpr int kLaneChannels = C == 3 ? 4 : C;
  constexpr int64_t kGroupBytes = 16 / kLaneChannels * C;
  static constexpr std::array<int8_t, 32> kShuffle = avx2_tap_shuffle<C>();
  const __m256i shuffle = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kShuffle.data()));
  const __m256i zero = _mm256_setzero_si256();
  // Pillow's 1/2 in the low half only (the halves are added at the end).
  constexpr int kLc = kLaneChannels;
  const __m256i half =
      _mm256_setr_epi32(kFixedHalf, kLc > 1 ? kFixedHalf : 0, kLc > 2 ? kFixedHalf : 0,
                        kLc > 3 ? kFixedHalf : 0, 0, 0, 0, 0);
  const auto* k = reinterpret_cast<const __m256i*>(coefs);
  auto taps = [shuffle](const uint8_t* p) SLUICE_AVX2 {
    return _mm256_shuffle_epi8(
        _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), shuffle);
  };
  for (int32_t x = 0; x < ow; x++) {
    const HPixel px = pixels[x];
    const uint8_t* p0 = (px.tail ? tails[0] : rows[0]) + px.offset;
    const uint8_t* p1 = (px.tail ? tails[1] : rows[1]) + px.offset;
    const uint8_t* p2 = (px.tail ? tails[2] : rows[2]) + px.offset;
    const uint8_t* p3 = (px.tail ? tails[3] : rows[3]) + px.offset;
    __m256i h0 = zero, h1 = zero, h2 = zero, h3 = zero;
    __m256i l0 = half, l1 = half, l2 = half, l3 = half;
    for (int64_t g = 0; g < px.groups; g++) {
      const __m256i kh = _mm256_load_si256(k);
      const __m256i kl = _mm256_load_si256(k + 1);
      k += 2;
      const int64_t o = g * kGroupBytes;
      __m256i d = taps(p0 + o);
      h0 = _mm256_add_epi32(h0, _mm256_madd_epi16(d, kh));
      l0 = _mm256_add_epi32(l0, _mm256_madd_epi16(d, kl));
      d = taps(p1 + o);
      h1 = _mm256_add_epi32(h1, _mm256_madd_epi16(d, kh));
      l1 = _mm256_add_epi32(l1, _mm256_madd_epi16(d, kl));
      d = taps(p2 + o);
      h2 = _mm256_add_epi32(h2, _mm256_madd_epi16(d, kh));
      l2 = _mm256_add_epi32(l2, _mm256_madd_epi16(d, kl));
      d = taps(p3 + o);
      h3 = _mm256_add_epi32(h3, _mm256_madd_epi16(d, kh));
      l3 = _mm256_add_epi32(l3, _mm256_madd_epi16(d, kl));
    }
    const int64_t at = int64_t{x} * C;
    store_4_rows<C>(dsts[0] + at, dsts[1] + at, dsts[2] + at, dsts[3] + at,
                    _mm256_add_epi32(_mm256_slli_epi32(h0, kSplit), l0),
                    _mm256_add_epi32(_mm256_slli_epi32(h1, kSplit), l1),
                    _mm256_add_epi32(_mm256_slli_epi32(h2, kSplit), l2),
                    _mm256_add_epi32(_mm256_slli_epi32(h3, kSplit), l3));
  }
}

SLUICE_AVX2 inline __m256i join_split_shift(__m256i hi, __m256i lo) {
  return _mm256_srai_epi32(_mm256_add_epi32(_mm256_slli_epi32(hi, kSplit), lo), kCoeffFractionBits);
}

SLUICE_AVX2 inline __m256i v_block_avx2(const VPair* p, const VPair* end, int64_t e) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i half = _mm256_set1_epi32(kFixedHalf);
  __m256i h0 = zero, h1 = zero, h2 = zero, h3 = zero;
  __m256i l0 = half, l1 = half, l2 = half, l3 = half;
  for (; p != end; ++p) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p->a + e));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p->b + e));
    const __m256i kh = _mm256_set1_epi32(p->k_hi[0]);
    const __m256i kl = _mm256_set1_epi32(p->k_lo[0]);
    // Per 128-bit half, as in v_block_sse2; the packs below undo the interleaving.
    const __m256i ab_lo = _mm256_unpacklo_epi8(a, b);
    const __m256i ab_hi = _mm256_unpackhi_epi8(a, b);
    const __m256i q0 = _mm256_unpacklo_epi8(ab_lo, zero);
    const __m256i q1 = _mm256_unpackhi_epi8(ab_lo, zero);
    const __m256i q2 = _mm256_unpacklo_epi8(ab_hi, zero);
    const __m256i q3 = _mm256_unpackhi_epi8(ab_hi, zero);
    h0 = _mm256_add_epi32(h0, _mm256_madd_epi16(q0, kh));
    l0 = _mm256_add_epi32(l0, _mm256_madd_epi16(q0, kl));
    h1 = _mm256_add_epi32(h1, _mm256_madd_epi16(q1, kh));
    l1 = _mm256_add_epi32(l1, _mm256_madd_epi16(q1, kl));
    h2 = _mm256_add_epi32(h2, _mm256_madd_epi16(q2, kh));
    l2 = _mm256_add_epi32(l2, _mm256_madd_epi16(q2, kl));
    h3 = _mm256_add_epi32(h3, _mm256_madd_epi16(q3, kh));
    l3 = _mm256_add_epi32(l3, _mm256_madd_epi16(q3, kl));
  }
  return _mm256_packus_epi16(
      _mm256_packs_epi32(join_split_shift(h0, l0), join_split_shift(h1, l1)),
      _mm256_packs_epi32(join_split_shift(h2, l2), join_split_shift(h3, l3)));
}

SLUICE_AVX2 void v_rows_avx2(const int32_t* begin, const VPair* pairs, int32_t oh, int64_t row_len,
                             uint8_t* out, int64_t out_stride) {
  constexpr int64_t kBlock = 32;
  for (int32_t y = 0; y < oh; y++) {
    const VPair* p = pairs + begin[y];
    const VPair* end = pairs + begin[y + 1];
    uint8_t* dst = out + y * out_stride;
    int64_t e = 0;
    for (; e + kBlock <= row_len; e += kBlock) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + e), v_block_avx2(p, end, e));
    }
    if (e < row_len) {  // the last block again, ending at the row's end
      e = row_len - kBlock;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + e), v_block_avx2(p, end, e));
    }
  }
}

// ---- Driver ----

template <int C>
void gather(const FixedPointJob& job, const int32_t* h_first, const int32_t* v_first) {
  for (int32_t y = 0; y < job.v.out_count; y++) {
    const uint8_t* row = job.in + v_first[y] * job.in_stride;
    uint8_t* dst = job.out + y * job.out_stride;
    for (int32_t x = 0; x < job.h.out_count; x++) {
      std::memcpy(dst + x * C, row + h_first[x] * C, C);
    }
  }
}

template <int C>
void horizontal_pass(const FixedPointJob& job, const Layout& l, FixedPointIsa isa,
                     const HPixel* pixels, const int32_t* coefs, int64_t tail, uint8_t* tails,
                     uint8_t* tmp) {
  const int32_t rows = job.rows.end - job.rows.begin;
  const int64_t R = l.row_bytes;
  uint8_t* copies[4];  // tail copies, one per row of a step
  for (int i = 0; i < 4; i++) {
    copies[i] = tails + i * Scratch::align_up(l.tail_bytes);
    std::memset(copies[i] + tail, 0, static_cast<size_t>(l.tail_bytes - tail));
  }
  // Rows in steps of 4 (AVX2) or 2 (SSE2); the last rows of a short step repeat (the same values
  // written to the same place).
  const int step = isa == FixedPointIsa::kAvx2 ? 4 : 2;
  for (int32_t r = 0; r < rows; r += step) {
    const uint8_t* src[4];
    uint8_t* dst[4];
    for (int i = 0; i < step; i++) {
      const int32_t ri = std::min(r + i, rows - 1);
      src[i] = job.in + (job.rows.begin + ri) * job.in_stride;
      dst[i] = tmp + ri * l.tmp_stride;
      if (tail > 0) std::memcpy(copies[i], src[i] + R - tail, static_cast<size_t>(tail));
    }
    if (step == 4) {
      h_rows_avx2<C>(pixels, coefs, job.h.out_count, src, copies, dst);
    } else {
      h_rows_sse2<C>(pixels, coefs, job.h.out_count, src, copies, dst);
    }
  }
}

template <int C>
void run(const FixedPointJob& job, FixedPointIsa isa, std::byte* base) {
  const Layout l = make_layout(job, isa);
  auto at = [base](size_t off) { return reinterpret_cast<void*>(base + off); };
  const CoeffTables<int32_t> t(base, l.tables);
  t.compute(job.h, job.v);
  if (job.h.filter == ResampleFilter::kNearest && job.v.filter == ResampleFilter::kNearest) {
    // Both axes nearest: a gather (the passes would copy the values, as in resize_cpu).
    gather<C>(job, t.h_first, t.v_first);
    return;
  }
  auto* pixels = static_cast<HPixel*>(at(l.h_pixels));
  auto* coefs = static_cast<int32_t*>(at(l.h_coefs));
  auto* tmp = static_cast<uint8_t*>(at(l.tmp));
  auto* begin = static_cast<int32_t*>(at(l.v_begin));
  auto* pairs = static_cast<VPair*>(at(l.v_pair));
  const int64_t tail = build_h_table(job, l, t.h_first, t.h_count, t.h_weights, pixels, coefs);
  build_v_table(job, l, t.v_first, t.v_count, t.v_weights, tmp, begin, pairs);
  horizontal_pass<C>(job, l, isa, pixels, coefs, tail, static_cast<uint8_t*>(at(l.tails)), tmp);
  const int64_t row_len = job.h.out_count * C;
  if (isa == FixedPointIsa::kAvx2 && row_len >= 32) {
    v_rows_avx2(begin, pairs, job.v.out_count, row_len, job.out, job.out_stride);
  } else {
    v_rows_sse2(begin, pairs, job.v.out_count, row_len, job.out, job.out_stride);
  }
}

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

#endif  // SLUICE_RESAMPLE_X86

}  // namespace

bool fixed_point_isa_available(FixedPointIsa isa) {
#if defined(SLUICE_RESAMPLE_X86)
  return isa == FixedPointIsa::kSse2 || cpu_has_avx2();
#else
  (void)isa;
  return false;
#endif
}

FixedPointIsa fixed_point_best_isa() {
  return fixed_point_isa_available(FixedPointIsa::kAvx2) ? FixedPointIsa::kAvx2
                                                         : FixedPointIsa::kSse2;
}

bool fixed_point_resampler_supports(int64_t channels) {
#if defined(SLUICE_RESAMPLE_X86)
  return channels >= 1 && channels <= 4;
#else
  (void)channels;
  return false;
#endif
}

size_t fixed_point_scratch_bytes(const FixedPointJob& job, FixedPointIsa isa) {
#if defined(SLUICE_RESAMPLE_X86)
  return make_layout(job, isa).bytes;
#else
  (void)job;
  (void)isa;
  return 0;
#endif
}

void resample_fixed_point(const FixedPointJob& job, FixedPointIsa isa, std::byte* scratch) {
#if defined(SLUICE_RESAMPLE_X86)
  dispatch_channels(job.channels, [&](auto c) { run<decltype(c)::value>(job, isa, scratch); });
#else
  (void)job;
  (void)isa;
  (void)scratch;
#endif
}

}  // namespace sluice::kernels::detail
