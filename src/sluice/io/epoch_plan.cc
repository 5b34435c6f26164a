#include "sluice/io/epoch_plan.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

#include "sluice/core/error.h"
#include "sluice/core/rng.h"

namespace sluice {
namespace {

constexpr int64_t kMaxSamples = std::numeric_limits<uint32_t>::max();

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

std::vector<uint32_t> epoch_permutation(int64_t n, uint64_t seed, int64_t epoch) {
  SLUICE_CHECK(n >= 0 && n <= kMaxSamples, InvalidArgument, "epoch_permutation: n = ", n,
               " is outside [0, ", kMaxSamples, "]");
  std::vector<uint32_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0u);
  SampleRng rng(seed, epoch, kPermutationStreamId);
  for (int64_t i = n - 1; i > 0; --i) {
    // 64 random bits and a multiply-shift (Lemire): bias at most (i+1) / 2^64, negligible even
    // for the largest n, unlike a 32-bit draw whose bias grows with n / 2^32.
    uint64_t r = (static_cast<uint64_t>(rng.next_u32()) << 32) | rng.next_u32();
    auto j = static_cast<int64_t>(
        (static_cast<unsigned __int128>(r) * static_cast<uint64_t>(i + 1)) >> 64);
    std::swap(p[i], p[j]);
  }
  return p;
}

EpochPlan::EpochPlan(const EpochPlanOptions& o) : options_(o) {
  const int64_t n = o.num_samples, s = o.num_shards, b = o.batch_size;
  SLUICE_CHECK(n >= 1 && n <= kMaxSamples, InvalidArgument, "the number of samples (", n,
               ") must be in [1, ", kMaxSamples, "]");
  SLUICE_CHECK(s >= 1, InvalidArgument, "num_shards (", s, ") must be at least 1");
  SLUICE_CHECK(o.shard_id >= 0 && o.shard_id < s, InvalidArgument, "shard_id (", o.shard_id,
               ") must be in [0, num_shards) = [0, ", s, ")");
  SLUICE_CHECK(s <= n, InvalidArgument, "num_shards (", s,
               ") is larger than the number of samples (", n, "): some shards would be empty");
  SLUICE_CHECK(b >= 1, InvalidArgument, "batch_size (", b, ") must be at least 1");

  meta_.epoch_size = n;
  meta_.number_of_shards = s;
  meta_.shard_id = o.shard_id;
  meta_.pad_last_batch = o.pad_last_batch;
  meta_.stick_to_shard = o.stick_to_shard;
  meta_.batches_per_epoch = ceil_div(ceil_div(n, s), b);
  meta_.epoch_size_padded = o.pad_last_batch ? s * ceil_div(n, s) : n;  // shards padded, as DALI

  const EpochPlanOptions::Remainder& r = o.remainder;
  if (r.epoch < 0) return;
  SLUICE_CHECK(r.num_shards >= 1 && r.num_shards <= n && r.consumed >= 0, InvalidArgument,
               "resume: the interrupted layout (", r.num_shards, " shards, ", r.consumed,
               " samples read per shard) does not fit ", n, " samples");
  remainder_prefix_.resize(static_cast<size_t>(r.num_shards));
  int64_t total = 0;
  for (int64_t k = 0; k < r.num_shards; ++k) {
    const int64_t begin = k * n / r.num_shards, end = (k + 1) * n / r.num_shards;
    total += std::max<int64_t>(0, end - begin - r.consumed);
    remainder_prefix_[static_cast<size_t>(k)] = total;
  }
  SLUICE_CHECK(total >= 1, InvalidArgument, "resume: epoch ", r.epoch,
               " has no samples left to read (", r.consumed, " read per shard of ", r.num_shards,
               "): resume at the start of epoch ", r.epoch + 1, " instead");
  remainder_batches_ = ceil_div(ceil_div(total, s), b);
}

int64_t EpochPlan::batches_in_epoch(int64_t epoch) const {
  return epoch == options_.remainder.epoch ? remainder_batches_ : meta_.batches_per_epoch;
}

int64_t EpochPlan::remainder_position(int64_t r) const {
  const auto it = std::upper_bound(remainder_prefix_.begin(), remainder_prefix_.end(), r);
  const auto k = static_cast<int64_t>(it - remainder_prefix_.begin());
  const int64_t before = k == 0 ? 0 : remainder_prefix_[static_cast<size_t>(k - 1)];
  const int64_t n = options_.num_samples, old = options_.remainder.num_shards;
  return k * n / old + options_.remainder.consumed + (r - before);
}

void EpochPlan::remainder_batch(int64_t index, PlannedBatch* out) const {
  const int64_t total = remainder_size(), s = options_.num_shards, b = options_.batch_size;
  const int64_t begin = options_.shard_id * total / s;
  const int64_t size = (options_.shard_id + 1) * total / s - begin;  // 0 when |R| < S
  Permutation p = permutation(out->epoch);
  out->shard = options_.shard_id;
  out->indices.resize(static_cast<size_t>(b));
  const int64_t first = index * b;
  out->num_valid = std::clamp<int64_t>(size - first, 0, b);
  out->complete_on_all_shards = (index + 1) * b <= total / s;
  for (int64_t t = 0; t < b; ++t) {
    int64_t at = 0;  // a shard left without samples fills its batch with the remainder's first
    if (size > 0) {
      int64_t pos = first + t;
      if (pos >= size) pos = options_.pad_last_batch ? size - 1 : pos % size;
      at = begin + pos;
    }
    const int64_t q = remainder_position(at);
    out->indices[t] = p ? static_cast<int64_t>((*p)[q]) : q;
  }
}

int64_t EpochPlan::shard_for_epoch(int64_t epoch) const {
  check_epoch(epoch);
  if (options_.stick_to_shard) return options_.shard_id;
  return (options_.shard_id + epoch % options_.num_shards) % options_.num_shards;
}

int64_t EpochPlan::shard_begin(int64_t k) const {
  // k * N < 2^64 because k <= S <= N < 2^32: unsigned arithmetic cannot overflow.
  return static_cast<int64_t>(static_cast<uint64_t>(k) *
                              static_cast<uint64_t>(options_.num_samples) /
                              static_cast<uint64_t>(options_.num_shards));
}

void EpochPlan::check_epoch(int64_t epoch) const {
  SLUICE_CHECK(epoch >= 0, InvalidArgument, "epoch (", epoch, ") must be non-negative");
}

EpochPlan::Permutation EpochPlan::permutation(int64_t epoch) const {
  if (!options_.shuffle) return nullptr;
  {
    std::lock_guard<std::mutex> lock(cache_->mu);
    for (const CachedPermutation& c : cache_->slots) {
      if (c.order && c.epoch == epoch) return c.order;
    }
  }
  // Computed outside the lock: O(N), and other threads may meanwhile use the cached epoch. Two
  // threads missing at once compute the same permutation; one result is kept.
  const EpochPlanOptions::Remainder& r = options_.remainder;
  const uint64_t seed = epoch == r.epoch && r.seed ? *r.seed : options_.seed;
  auto order = std::make_shared<const std::vector<uint32_t>>(
      epoch_permutation(options_.num_samples, seed, epoch));
  std::lock_guard<std::mutex> lock(cache_->mu);
  CachedPermutation* slots = cache_->slots;
  for (int i = 0; i < 2; ++i) {
    if (slots[i].order && slots[i].epoch == epoch) return slots[i].order;
  }
  // Evict an empty slot, else the older epoch.
  CachedPermutation* slot = &slots[0];
  if (slots[0].order && (!slots[1].order || slots[1].epoch < slots[0].epoch)) slot = &slots[1];
  slot->epoch = epoch;
  slot->order = order;
  return order;
}

void EpochPlan::prepare(int64_t epoch) const {
  check_epoch(epoch);
  (void)permutation(epoch);
}

std::vector<int64_t> EpochPlan::epoch_order(int64_t epoch) const {
  check_epoch(epoch);
  std::vector<int64_t> order(static_cast<size_t>(options_.num_samples));
  Permutation p = permutation(epoch);
  for (size_t i = 0; i < order.size(); ++i) order[i] = p ? (*p)[i] : static_cast<int64_t>(i);
  return order;
}

PlannedBatch EpochPlan::batch(int64_t epoch, int64_t index) const {
  PlannedBatch out;
  batch(epoch, index, &out);
  return out;
}

void EpochPlan::batch(int64_t epoch, int64_t index, PlannedBatch* out) const {
  check_epoch(epoch);
  const int64_t nb = batches_in_epoch(epoch), b = options_.batch_size;
  SLUICE_CHECK(index >= 0 && index < nb, InvalidArgument, "batch index (", index,
               ") must be in [0, batches_per_epoch) = [0, ", nb, ")");
  if (epoch == options_.remainder.epoch) {
    out->epoch = epoch;
    out->index = index;
    remainder_batch(index, out);
    return;
  }
  const int64_t k = shard_for_epoch(epoch);
  const int64_t begin = shard_begin(k);
  const int64_t size = shard_end(k) - begin;  // >= 1 since S <= N
  Permutation p = permutation(epoch);

  out->epoch = epoch;
  out->index = index;
  out->shard = k;
  out->indices.resize(static_cast<size_t>(b));
  const int64_t first = index * b;
  out->num_valid = std::clamp<int64_t>(size - first, 0, b);
  // The smallest shard has floor(N/S) samples.
  out->complete_on_all_shards = (index + 1) * b <= options_.num_samples / options_.num_shards;
  for (int64_t t = 0; t < b; ++t) {
    int64_t pos = first + t;
    if (pos >= size) pos = options_.pad_last_batch ? size - 1 : pos % size;
    const int64_t at = begin + pos;
    out->indices[t] = p ? static_cast<int64_t>((*p)[at]) : at;
  }
}

}  // namespace sluice
