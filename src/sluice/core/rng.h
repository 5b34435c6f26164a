#pragma once
// Counter-based random numbers (Philox4x32-10, Salmon et al., SC'11). Every draw is a pure
// function of (key, counter), so a sample's random values depend only on
// (pipeline seed, operator, epoch, sample id) - never on threads, prefetch depth or the order in
// which samples are processed. Usable in host and device code; CPU references and CUDA kernels
// produce identical bits.

#include <cmath>
#include <cstdint>

#include "sluice/core/float16.h"

namespace sluice {

struct PhiloxKey {
  uint32_t k0, k1;
};

SLUICE_HOST_DEVICE inline void philox_round(uint32_t c[4], const uint32_t k[2]) {
  const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c[0];
  const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c[2];
  const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
  const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
  const uint32_t n0 = hi1 ^ c[1] ^ k[0];
  const uint32_t n2 = hi0 ^ c[3] ^ k[1];
  c[0] = n0;
  c[1] = lo1;
  c[2] = n2;
  c[3] = lo0;
}

// Fills out[4] with the Philox4x32-10 block for (key, counter).
SLUICE_HOST_DEVICE inline void philox4x32(PhiloxKey key, const uint32_t counter[4],
                                          uint32_t out[4]) {
  uint32_t c[4] = {counter[0], counter[1], counter[2], counter[3]};
  uint32_t k[2] = {key.k0, key.k1};
  for (int r = 0; r < 10; ++r) {
    philox_round(c, k);
    k[0] += 0x9E3779B9u;
    k[1] += 0xBB67AE85u;
  }
  out[0] = c[0];
  out[1] = c[1];
  out[2] = c[2];
  out[3] = c[3];
}

// 64-bit mixing (splitmix64 finalizer) to derive keys from seeds and identifiers.
SLUICE_HOST_DEVICE inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The random stream of one sample of one operator: draws 0, 1, 2, ... in order.
class SampleRng {
 public:
  SLUICE_HOST_DEVICE SampleRng(uint64_t op_seed, int64_t epoch, int64_t sample_id) {
    uint64_t k = mix64(op_seed ^ mix64(static_cast<uint64_t>(epoch) + 0x51ED27u));
    key_ = {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)};
    uint64_t s = static_cast<uint64_t>(sample_id);
    ctr_[0] = 0;
    ctr_[1] = 0;
    ctr_[2] = static_cast<uint32_t>(s);
    ctr_[3] = static_cast<uint32_t>(s >> 32);
  }

  SLUICE_HOST_DEVICE uint32_t next_u32() {
    if (idx_ >= 4) refill();
    return buf_[idx_++];
  }

  // Uniform float in [0, 1) with 24 random bits.
  SLUICE_HOST_DEVICE float uniform() { return unit_float(next_u32()); }
  // Uniform double in [0, 1) with 53 random bits.
  SLUICE_HOST_DEVICE double uniform_double() {
    uint64_t hi = next_u32() >> 5, lo = next_u32() >> 6;
    return static_cast<double>((hi << 26) | lo) * 0x1p-53;
  }
  // Uniform float in [lo, hi). Unfused multiply and add, so CUDA gives the same bits.
  SLUICE_HOST_DEVICE float uniform(float lo, float hi) { return scale_unit(uniform(), lo, hi); }

  SLUICE_HOST_DEVICE static float unit_float(uint32_t u) {
    return static_cast<float>(u >> 8) * 0x1p-24f;
  }
  SLUICE_HOST_DEVICE static float scale_unit(float u, float lo, float hi) {
#if defined(__CUDA_ARCH__)
    return __fadd_rn(lo, __fmul_rn(__fsub_rn(hi, lo), u));
#else
    return lo + (hi - lo) * u;
#endif
  }

  // The n-th 32-bit draw of this stream without advancing it (for GPU kernels that generate the
  // draws of one sample in parallel).
  SLUICE_HOST_DEVICE uint32_t nth_u32(uint64_t n) const {
    uint32_t c[4] = {static_cast<uint32_t>(n / 4), static_cast<uint32_t>((n / 4) >> 32), ctr_[2],
                     ctr_[3]};
    uint32_t out[4];
    philox4x32(key_, c, out);
    return out[n % 4];
  }
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias below 2^-32 * n).
  SLUICE_HOST_DEVICE uint32_t below(uint32_t n) {
    return static_cast<uint32_t>((static_cast<uint64_t>(next_u32()) * n) >> 32);
  }

 private:
  SLUICE_HOST_DEVICE void refill() {
    ctr_[0] = static_cast<uint32_t>(block_);
    ctr_[1] = static_cast<uint32_t>(block_ >> 32);
    philox4x32(key_, ctr_, buf_);
    ++block_;
    idx_ = 0;
  }

  PhiloxKey key_;
  uint32_t ctr_[4];
  uint32_t buf_[4] = {0, 0, 0, 0};
  uint64_t block_ = 0;
  int idx_ = 4;
};

// Seed of an operator instance from the pipeline seed and the operator's index in the graph,
// unless the operator was given its own seed.
inline uint64_t operator_seed(int64_t pipeline_seed, int64_t op_index, int64_t op_own_seed) {
  if (op_own_seed >= 0) return mix64(static_cast<uint64_t>(op_own_seed) ^ 0xA5A5A5A5ull);
  return mix64(static_cast<uint64_t>(pipeline_seed) * 0x100000001B3ull +
               static_cast<uint64_t>(op_index));
}

}  // namespace sluice
