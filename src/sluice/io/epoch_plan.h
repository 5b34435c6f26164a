#pragma once
// Epoch, shard and batch planning for readers: which dataset indices batch j of epoch e holds on
// this shard.
//
// Semantics (N samples, S shards, this shard s, batch size B):
//  - Epoch order P_e: with shuffle, a full permutation of 0..N-1 by Fisher-Yates driven by
//    SampleRng(seed, e, kPermutationStreamId) (see epoch_permutation()); without shuffle,
//    0..N-1. Every shard of a job must use the same seed, so that all agree on P_e: the seed must
//    be job-wide, not a per-rank pipeline seed (DALI's ResNet example seeds pipelines with
//    12 + local_rank).
//  - Shard k of epoch e is P_e[floor(k*N/S) : floor((k+1)*N/S)] (sizes differ by at most 1; every
//    shard has at least one sample because S <= N). This reader reads k = s with
//    stick_to_shard, else k = (s + e) % S (DALI's shard rotation), so across the S readers of a
//    job the shards of an epoch are a partition of the dataset.
//  - Every shard yields nb = ceil(ceil(N/S) / B) batches per epoch. A shard with fewer than nb*B
//    samples fills the remaining slots of its last batch(es): with pad_last_batch by repeating
//    its last sample, otherwise by wrapping around to the first samples of its own order. Filled
//    slots are not valid and always follow the valid ones, so across all shards every sample
//    appears exactly once per epoch among the valid slots.
//  - A batch index is complete on all shards when every shard's batch at that index has B valid
//    slots, i.e. (j+1)*B <= floor(N/S). A DROP last-batch policy drops batches that are not, so
//    all ranks drop the same ones and stay in step.
//  - Reader metadata uses DALI's names and values: epoch_size_padded = S*ceil(N/S) with
//    pad_last_batch (every shard padded to the largest), else N.
//  - Elastic resume (EpochPlanOptions::remainder): epoch r was interrupted under S' shards after
//    each of them had read its first c positions. Epoch r then holds only the rest,
//    R = the concatenation over k' < S' of P_r[shard'_k' begin + c : shard'_k' end], split into
//    S contiguous shards as above (floor(t*|R|/S)), without rotation, with its own batch count
//    ceil(ceil(|R|/S) / B) and the same filling rules; epochs after r are normal. P_r is the
//    order the old layout had: drawn with remainder.seed when given (a layout whose seed differs
//    from this one's), else with seed. Across the S readers every sample S' had not read is read
//    once.
//
// Cost: batch() is O(B), after an O(N) permutation per epoch when shuffling. Permutations are
// cached for two epochs (the current one and the next, which a prefetching reader asks for
// before the current one is consumed); asking for a third evicts the oldest.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace sluice {

struct EpochPlanOptions {
  int64_t num_samples = 0;  // N, 1 <= N <= 2^32 - 1
  int64_t num_shards = 1;   // S, 1 <= S <= N
  int64_t shard_id = 0;     // s, 0 <= s < S
  int64_t batch_size = 1;   // B >= 1
  bool shuffle = false;
  uint64_t seed = 0;  // job-wide: the same on every shard
  bool stick_to_shard = false;
  bool pad_last_batch = false;
  // An epoch interrupted under another layout (elastic resume); epoch < 0: none.
  struct Remainder {
    int64_t epoch = -1;
    int64_t num_shards = 0;        // S' >= 1
    int64_t consumed = 0;          // c >= 0: positions every old shard had read
    std::optional<uint64_t> seed;  // the old layout's seed, when not `seed`
  } remainder;
};

// Reader metadata, as DALI's reader_meta() reports it, plus the batch count.
struct ReaderMeta {
  int64_t epoch_size = 0;         // N
  int64_t epoch_size_padded = 0;  // S * ceil(N / S) with pad_last_batch, else N
  int64_t number_of_shards = 1;
  int64_t shard_id = 0;
  bool pad_last_batch = false;
  bool stick_to_shard = false;
  int64_t batches_per_epoch = 0;  // nb, the same on every shard
};

struct PlannedBatch {
  int64_t epoch = 0;
  int64_t index = 0;             // within the epoch, [0, batches_per_epoch)
  int64_t shard = 0;             // k: the shard of the epoch order this batch is drawn from
  std::vector<int64_t> indices;  // dataset indices, batch_size of them
  int64_t num_valid = 0;         // slots [0, num_valid) are real; the rest fill the batch
  bool complete_on_all_shards = false;

  bool valid(int64_t slot) const { return slot < num_valid; }
};

// The sample id under which epoch permutations draw from SampleRng; negative so that it never
// collides with the stream of a real sample (ids >= 0) under the same seed.
inline constexpr int64_t kPermutationStreamId = -1;

// P_e for N = n: start from 0..n-1; for i = n-1 down to 1, draw r = (u32 << 32) | u32 from
// SampleRng(seed, epoch, kPermutationStreamId), take j = floor(r * (i+1) / 2^64) and swap
// elements i and j. Pure function of (n, seed, epoch). n <= 2^32 - 1.
std::vector<uint32_t> epoch_permutation(int64_t n, uint64_t seed, int64_t epoch);

// The plan of one shard. Validates its options in the constructor (InvalidArgument naming the
// values).
//
// Thread safety: all methods are const and may be called concurrently from several threads (the
// permutation cache is guarded by an internal mutex; a permutation being computed does not block
// batch() calls for an epoch already cached).
class EpochPlan {
 public:
  explicit EpochPlan(const EpochPlanOptions& options);
  EpochPlan(EpochPlan&&) noexcept = default;
  EpochPlan& operator=(EpochPlan&&) noexcept = default;

  const EpochPlanOptions& options() const { return options_; }
  const ReaderMeta& meta() const { return meta_; }
  int64_t batches_per_epoch() const { return meta_.batches_per_epoch; }
  // batches_per_epoch(), except for the remainder epoch of an elastic resume.
  int64_t batches_in_epoch(int64_t epoch) const;
  // The number of samples of the remainder epoch (|R|); 0 without one.
  int64_t remainder_size() const {
    return remainder_prefix_.empty() ? 0 : remainder_prefix_.back();
  }

  // The shard k this reader reads in `epoch`.
  int64_t shard_for_epoch(int64_t epoch) const;
  // Positions [begin, end) of shard k in the epoch order.
  int64_t shard_begin(int64_t k) const;
  int64_t shard_end(int64_t k) const { return shard_begin(k + 1); }

  // Batch `index` of `epoch` on this shard. epoch >= 0, 0 <= index < batches_in_epoch(epoch).
  PlannedBatch batch(int64_t epoch, int64_t index) const;
  // Same, reusing out->indices' capacity.
  void batch(int64_t epoch, int64_t index, PlannedBatch* out) const;

  // Computes and caches the permutation of `epoch` now (e.g. on a background thread before the
  // epoch starts), so that the first batch() of that epoch does not pay O(N). No-op without
  // shuffle.
  void prepare(int64_t epoch) const;

  // The whole order P_e, O(N). For tools and tests.
  std::vector<int64_t> epoch_order(int64_t epoch) const;

 private:
  using Permutation = std::shared_ptr<const std::vector<uint32_t>>;
  Permutation permutation(int64_t epoch) const;  // null without shuffle
  void check_epoch(int64_t epoch) const;
  // The position in the epoch order of the remainder's r-th sample.
  int64_t remainder_position(int64_t r) const;
  void remainder_batch(int64_t index, PlannedBatch* out) const;

  EpochPlanOptions options_;
  ReaderMeta meta_;
  // Remainder epoch: remainder_prefix_[k'] = samples left by old shards 0..k' (inclusive).
  std::vector<int64_t> remainder_prefix_;
  int64_t remainder_batches_ = 0;

  struct CachedPermutation {
    int64_t epoch = -1;
    Permutation order;
  };
  struct Cache {
    std::mutex mu;
    CachedPermutation slots[2];  // guarded by mu
  };
  // Behind a pointer so that plans can be moved (a moved-from plan must not be used).
  std::unique_ptr<Cache> cache_ = std::make_unique<Cache>();
};

}  // namespace sluice
