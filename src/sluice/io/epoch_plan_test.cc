#include "sluice/io/epoch_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/core/rng.h"

namespace sluice {
namespace {

EpochPlanOptions make_options(int64_t n, int64_t shards, int64_t shard, int64_t batch,
                              bool shuffle = false, bool pad = false, bool stick = false,
                              uint64_t seed = 42) {
  EpochPlanOptions o;
  o.num_samples = n;
  o.num_shards = shards;
  o.shard_id = shard;
  o.batch_size = batch;
  o.shuffle = shuffle;
  o.pad_last_batch = pad;
  o.stick_to_shard = stick;
  o.seed = seed;
  return o;
}

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Simulates every shard of a job for several epochs and checks the contract of epoch_plan.h
// from the outside: batch counts, exact-once coverage of valid slots, valid prefix, fill rule,
// shard boundaries, DROP completeness and metadata.
void check_job(int64_t n, int64_t s, int64_t b, bool shuffle, bool pad, bool stick) {
  SCOPED_TRACE(::testing::Message() << "N=" << n << " S=" << s << " B=" << b << " shuffle="
                                    << shuffle << " pad=" << pad << " stick=" << stick);
  std::vector<EpochPlan> plans;
  for (int64_t r = 0; r < s; ++r) plans.emplace_back(make_options(n, s, r, b, shuffle, pad, stick));
  const int64_t nb = ceil_div(ceil_div(n, s), b);
  for (const EpochPlan& p : plans) {
    ASSERT_EQ(p.batches_per_epoch(), nb);
    EXPECT_EQ(p.meta().epoch_size, n);
    EXPECT_EQ(p.meta().epoch_size_padded, pad ? s * ceil_div(n, s) : n);
    EXPECT_EQ(p.meta().number_of_shards, s);
    EXPECT_EQ(p.meta().pad_last_batch, pad);
    EXPECT_EQ(p.meta().stick_to_shard, stick);
  }
  for (int64_t epoch = 0; epoch < 4; ++epoch) {
    const std::vector<int64_t> order = plans[0].epoch_order(epoch);
    std::vector<int> seen(n, 0);
    std::vector<int64_t> valid_per_index(nb, 0);
    std::vector<bool> all_complete(nb, true);
    for (int64_t r = 0; r < s; ++r) {
      const EpochPlan& plan = plans[r];
      EXPECT_EQ(plan.epoch_order(epoch), order);  // all shards agree on P_e
      const int64_t k = plan.shard_for_epoch(epoch);
      EXPECT_EQ(k, stick ? r : (r + epoch) % s);
      const int64_t begin = k * n / s, end = (k + 1) * n / s;
      const std::vector<int64_t> shard_order(order.begin() + begin, order.begin() + end);
      std::vector<int64_t> valid_samples;
      for (int64_t j = 0; j < nb; ++j) {
        PlannedBatch batch = plan.batch(epoch, j);
        ASSERT_EQ(static_cast<int64_t>(batch.indices.size()), b);
        EXPECT_EQ(batch.epoch, epoch);
        EXPECT_EQ(batch.index, j);
        EXPECT_EQ(batch.shard, k);
        ASSERT_GE(batch.num_valid, 0);
        ASSERT_LE(batch.num_valid, b);
        if (batch.num_valid < b) all_complete[j] = false;
        for (int64_t t = 0; t < b; ++t) {
          const int64_t idx = batch.indices[t];
          ASSERT_GE(idx, 0);
          ASSERT_LT(idx, n);
          const int64_t pos = j * b + t;  // position in this shard's sequence
          if (batch.valid(t)) {
            ASSERT_LT(pos, static_cast<int64_t>(shard_order.size()));
            EXPECT_EQ(idx, shard_order[pos]);
            valid_samples.push_back(idx);
            seen[idx]++;
          } else {
            // Filled slot: a repeat of the shard's last sample, or a wrap to its start.
            const int64_t size = static_cast<int64_t>(shard_order.size());
            EXPECT_EQ(idx, pad ? shard_order.back() : shard_order[pos % size]);
          }
        }
      }
      EXPECT_EQ(valid_samples, shard_order);  // valid slots are a prefix, in shard order
      for (int64_t j = 0; j < nb; ++j) valid_per_index[j] += plan.batch(epoch, j).num_valid;
    }
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "sample " << i << " epoch " << epoch;
    for (int64_t j = 0; j < nb; ++j) {
      EXPECT_EQ(plans[0].batch(epoch, j).complete_on_all_shards, all_complete[j]) << "batch " << j;
      // Every shard reports the same completeness, so all ranks drop the same batches.
      for (const EpochPlan& p : plans) {
        EXPECT_EQ(p.batch(epoch, j).complete_on_all_shards, all_complete[j]);
      }
    }
  }
}

TEST(EpochPlan, ExactOnceCoverageForAllShardCountsAndSizes) {
  for (int64_t s : {1, 2, 3, 8}) {
    for (int64_t n : {1, 7, 10, 257}) {
      if (s > n) continue;
      for (int64_t b : {1, 2, 3, 16}) {
        for (bool pad : {false, true}) {
          for (bool shuffle : {false, true}) {
            for (bool stick : {false, true}) check_job(n, s, b, shuffle, pad, stick);
          }
        }
      }
    }
  }
}

TEST(EpochPlan, DaliLastBatchExample) {
  // DALI's example: dataset [1..7], batch 2 -> last batch [7, 7] padded or [7, 1] wrapped.
  EpochPlan padded(make_options(7, 1, 0, 2, false, /*pad=*/true));
  PlannedBatch last = padded.batch(0, 3);
  EXPECT_EQ(last.indices, (std::vector<int64_t>{6, 6}));
  EXPECT_EQ(last.num_valid, 1);
  EXPECT_FALSE(last.complete_on_all_shards);
  EXPECT_EQ(padded.meta().epoch_size_padded, 7);  // as DALI

  EpochPlan wrapped(make_options(7, 1, 0, 2));
  EXPECT_EQ(wrapped.batch(0, 3).indices, (std::vector<int64_t>{6, 0}));
  EXPECT_EQ(wrapped.meta().epoch_size_padded, 7);
  EXPECT_TRUE(wrapped.batch(0, 2).complete_on_all_shards);
}

TEST(EpochPlan, StickToShardVersusRotation) {
  // N=10, S=3: shards [0,3) [3,6) [6,10); nb = ceil(4/4) = 1.
  EpochPlan sticky(make_options(10, 3, 0, 4, false, false, /*stick=*/true));
  EpochPlan rotating(make_options(10, 3, 0, 4));
  for (int64_t e = 0; e < 6; ++e) {
    EXPECT_EQ(sticky.shard_for_epoch(e), 0);
    EXPECT_EQ(sticky.batch(e, 0).indices, (std::vector<int64_t>{0, 1, 2, 0}));
    EXPECT_EQ(rotating.shard_for_epoch(e), e % 3);
  }
  EXPECT_EQ(rotating.batch(1, 0).indices, (std::vector<int64_t>{3, 4, 5, 3}));
  EXPECT_EQ(rotating.batch(2, 0).indices, (std::vector<int64_t>{6, 7, 8, 9}));
  EXPECT_EQ(rotating.batch(2, 0).num_valid, 4);
  EpochPlan padded(make_options(10, 3, 0, 4, false, /*pad=*/true));
  EXPECT_EQ(padded.batch(1, 0).indices, (std::vector<int64_t>{3, 4, 5, 5}));
  EXPECT_EQ(padded.batch(1, 0).num_valid, 3);
}

TEST(EpochPlan, CompletenessForDropPolicy) {
  // N=10, S=3, B=2: shard sizes 3, 3, 4; nb = 2. Index 0 is full everywhere, index 1 is not.
  for (int64_t r = 0; r < 3; ++r) {
    EpochPlan p(make_options(10, 3, r, 2));
    EXPECT_TRUE(p.batch(0, 0).complete_on_all_shards);
    EXPECT_FALSE(p.batch(0, 1).complete_on_all_shards);
  }
  // The shard of size 4 has a full batch 1 but it still is not complete on all shards.
  EpochPlan big(make_options(10, 3, 2, 2, false, false, true));
  EXPECT_EQ(big.batch(0, 1).num_valid, 2);
  EXPECT_FALSE(big.batch(0, 1).complete_on_all_shards);
}

TEST(EpochPlan, ShuffleChangesEveryEpochAndIsReproducible) {
  EpochPlan a(make_options(257, 4, 0, 8, /*shuffle=*/true));
  EpochPlan b(make_options(257, 4, 3, 8, true));  // another shard, same seed
  EpochPlan other_seed(make_options(257, 4, 0, 8, true, false, false, /*seed=*/43));
  std::vector<int64_t> identity(257);
  std::iota(identity.begin(), identity.end(), 0);
  std::vector<std::vector<int64_t>> orders;
  for (int64_t e = 0; e < 5; ++e) {
    std::vector<int64_t> order = a.epoch_order(e);
    EXPECT_EQ(order, b.epoch_order(e));
    EXPECT_NE(order, other_seed.epoch_order(e));
    EXPECT_NE(order, identity);
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, identity);
    for (const auto& previous : orders) EXPECT_NE(order, previous);
    orders.push_back(order);
  }
  // A fresh plan with the same seed repeats the batches exactly.
  EpochPlan again(make_options(257, 4, 0, 8, true));
  for (int64_t e = 0; e < 3; ++e) {
    for (int64_t j = 0; j < a.batches_per_epoch(); ++j) {
      EXPECT_EQ(again.batch(e, j).indices, a.batch(e, j).indices);
    }
  }
  EpochPlan unshuffled(make_options(257, 4, 0, 8));
  EXPECT_EQ(unshuffled.epoch_order(3), identity);
}

TEST(EpochPlan, PermutationFollowsTheDocumentedAlgorithm) {
  // Independent re-derivation of epoch_permutation's documented recipe.
  const int64_t n = 1000;
  const uint64_t seed = 0xDEADBEEF;
  const int64_t epoch = 7;
  std::vector<uint32_t> expected(n);
  std::iota(expected.begin(), expected.end(), 0u);
  SampleRng rng(seed, epoch, kPermutationStreamId);
  for (int64_t i = n - 1; i >= 1; --i) {
    uint64_t hi = rng.next_u32();
    uint64_t r = (hi << 32) | rng.next_u32();
    std::swap(expected[i],
              expected[static_cast<int64_t>((static_cast<unsigned __int128>(r) * (i + 1)) >> 64)]);
  }
  EXPECT_EQ(epoch_permutation(n, seed, epoch), expected);
  EXPECT_TRUE(epoch_permutation(0, seed, epoch).empty());
  EXPECT_EQ(epoch_permutation(1, seed, epoch), std::vector<uint32_t>{0});
}

TEST(EpochPlan, PermutationsAreUniform) {
  // All 6 orders of 3 items over 60000 epochs: each should appear 10000 +- 91 (one standard
  // deviation) times. A classic Fisher-Yates bug (drawing j from [0, n) instead of [0, i]) gives
  // 27 equally likely draw sequences for 6 orders, skewing counts to 8889 or 11111.
  std::map<std::vector<uint32_t>, int> counts;
  for (int64_t e = 0; e < 60000; ++e) counts[epoch_permutation(3, 5, e)]++;
  ASSERT_EQ(counts.size(), 6u);
  for (const auto& [perm, count] : counts) {
    EXPECT_GT(count, 9600);
    EXPECT_LT(count, 10400);
  }
}

TEST(EpochPlan, InvalidArgumentsNameTheValues) {
  auto expect_invalid = [](const EpochPlanOptions& o, const std::string& part) {
    try {
      EpochPlan p(o);
      ADD_FAILURE() << "accepted: " << part;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_invalid(make_options(10, 0, 0, 1), "num_shards (0)");
  expect_invalid(make_options(10, 2, 2, 1), "shard_id (2)");
  expect_invalid(make_options(10, 2, -1, 1), "shard_id (-1)");
  expect_invalid(make_options(3, 4, 0, 1),
                 "num_shards (4) is larger than the number of samples (3)");
  expect_invalid(make_options(10, 2, 0, 0), "batch_size (0)");
  expect_invalid(make_options(0, 1, 0, 1), "number of samples (0)");

  EpochPlan p(make_options(10, 2, 0, 2));
  EXPECT_THROW(p.batch(0, 3), InvalidArgument);
  EXPECT_THROW(p.batch(0, -1), InvalidArgument);
  EXPECT_THROW(p.batch(-1, 0), InvalidArgument);
}

TEST(EpochPlan, ConcurrentCallersSeeTheSameBatches) {
  EpochPlan plan(make_options(5000, 3, 1, 7, true, true));
  const int64_t nb = plan.batches_per_epoch();
  std::vector<std::vector<int64_t>> expected;
  {
    EpochPlan reference(make_options(5000, 3, 1, 7, true, true));
    for (int64_t e = 0; e < 6; ++e) {
      for (int64_t j = 0; j < nb; ++j) expected.push_back(reference.batch(e, j).indices);
    }
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      PlannedBatch batch;
      // Each thread walks the epochs in a different order, forcing cache evictions and
      // concurrent permutation builds.
      for (int64_t step = 0; step < 6; ++step) {
        int64_t e = (t % 2 == 0) ? step : 5 - step;
        if (t >= 2) plan.prepare((e + 1) % 6);
        for (int64_t j = 0; j < nb; ++j) {
          plan.batch(e, j, &batch);
          if (batch.indices != expected[e * nb + j]) mismatches[t]++;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

// Elastic resume: epoch 1 interrupted after `read` batches on every one of `old_shards` shards
// resumes on `new_shards`; the valid slots of the new shards hold exactly the samples the old
// ones had not read, and epoch 2 is the normal epoch of the new layout.
void check_remainder(int64_t n, int64_t old_shards, int64_t new_shards, int64_t b, int64_t read,
                     bool shuffle, bool pad) {
  std::multiset<int64_t> left;
  for (int64_t k = 0; k < old_shards; ++k) {
    EpochPlan old(make_options(n, old_shards, k, b, shuffle, pad));
    for (int64_t j = read; j < old.batches_per_epoch(); ++j) {
      PlannedBatch pb = old.batch(1, j);
      for (int64_t t = 0; t < pb.num_valid; ++t) left.insert(pb.indices[t]);
    }
  }
  std::multiset<int64_t> got;
  for (int64_t k = 0; k < new_shards; ++k) {
    EpochPlanOptions o = make_options(n, new_shards, k, b, shuffle, pad);
    o.remainder = {1, old_shards, read * b};
    EpochPlan plan(o);
    EpochPlan normal(make_options(n, new_shards, k, b, shuffle, pad));
    for (int64_t j = 0; j < plan.batches_in_epoch(1); ++j) {
      PlannedBatch pb = plan.batch(1, j);
      for (int64_t t = 0; t < pb.num_valid; ++t) got.insert(pb.indices[t]);
    }
    EXPECT_EQ(plan.batch(2, 0).indices, normal.batch(2, 0).indices);
    EXPECT_EQ(plan.batch(0, 0).indices, normal.batch(0, 0).indices);
  }
  EXPECT_EQ(got, left) << n << " samples, " << old_shards << " -> " << new_shards << " shards";
}

TEST(EpochPlan, RemainderEpochReadsWhatTheOldLayoutLeftOnce) {
  check_remainder(100, 8, 4, 3, 2, true, false);
  check_remainder(101, 2, 3, 4, 5, true, true);
  check_remainder(37, 4, 4, 2, 1, false, false);
  check_remainder(30, 3, 7, 4, 2, true, false);  // fewer samples left than shards
}

TEST(EpochPlan, RemainderEpochFollowsTheOldLayoutsSeed) {
  // Two shards permuted with seed 7 read 2 batches of 3; one shard with seed 9 resumes.
  std::multiset<int64_t> left;
  for (int64_t k = 0; k < 2; ++k) {
    EpochPlan old(make_options(25, 2, k, 3, true, false, false, 7));
    for (int64_t j = 2; j < old.batches_per_epoch(); ++j) {
      PlannedBatch pb = old.batch(1, j);
      left.insert(pb.indices.begin(), pb.indices.begin() + pb.num_valid);
    }
  }
  EpochPlanOptions o = make_options(25, 1, 0, 3, true, false, false, 9);
  o.remainder = {1, 2, 6, 7};
  EpochPlan plan(o);
  std::multiset<int64_t> got;
  for (int64_t j = 0; j < plan.batches_in_epoch(1); ++j) {
    PlannedBatch pb = plan.batch(1, j);
    got.insert(pb.indices.begin(), pb.indices.begin() + pb.num_valid);
  }
  EXPECT_EQ(got, left);
  // The epochs after it are this layout's own.
  EXPECT_EQ(plan.batch(2, 0).indices,
            EpochPlan(make_options(25, 1, 0, 3, true, false, false, 9)).batch(2, 0).indices);
}

TEST(EpochPlan, RemainderRefusesAnEmptyOrForeignLayout) {
  EpochPlanOptions o = make_options(10, 2, 0, 2);
  o.remainder = {0, 2, 5};  // every sample read
  EXPECT_THROW(EpochPlan{o}, InvalidArgument);
  o.remainder = {0, 11, 0};  // more old shards than samples
  EXPECT_THROW(EpochPlan{o}, InvalidArgument);
}

}  // namespace
}  // namespace sluice
