// Reader::batch_indices_ahead: what a reader predicts for the batches k iterations ahead is
// what those batches later are, for sharded, shuffled, padded, stick_to_shard and elastic-resume
// plans, across epoch boundaries.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sluice/ops/readers/reader.h"

namespace sluice {
namespace {

class PlanOnlyReader : public Reader {
 public:
  PlanOnlyReader(const OpSpec& spec, int64_t num_samples) : Reader(spec), n_(num_samples) {}
  void setup(const OpContext& ctx) override { plan(ctx, n_); }
  void run(Workspace&) override {}
  using Reader::batch_indices_ahead;
  using Reader::next_batch_indices;

 private:
  std::string sample_source(int64_t index) const override { return std::to_string(index); }
  int64_t n_;
};

const OpSchema& test_schema() {
  static OpSchema* schema = [] {
    auto* s = new OpSchema("readers.plan_only_test");
    add_reader_args(*s);
    return s;
  }();
  return *schema;
}

struct Case {
  int64_t n, shards, shard, batch;
  bool shuffle = false, pad = false, stick = false;
  int64_t resume_epoch = 0, resume_batch = 0, resume_shards = 0, resume_consumed = 0;
};

std::string describe(const Case& c) {
  return "n=" + std::to_string(c.n) + " shards=" + std::to_string(c.shards) +
         " shard=" + std::to_string(c.shard) + " batch=" + std::to_string(c.batch) +
         " shuffle=" + std::to_string(c.shuffle) + " pad=" + std::to_string(c.pad) +
         " stick=" + std::to_string(c.stick) + " resume=" + std::to_string(c.resume_epoch) + "/" +
         std::to_string(c.resume_batch) + "/" + std::to_string(c.resume_shards) + "/" +
         std::to_string(c.resume_consumed);
}

std::unique_ptr<PlanOnlyReader> make_reader(const Case& c) {
  OpSpec spec;
  spec.type = spec.name = "readers.plan_only_test";
  spec.schema = &test_schema();
  spec.args = {{"num_shards", c.shards},
               {"shard_id", c.shard},
               {"random_shuffle", c.shuffle},
               {"pad_last_batch", c.pad},
               {"stick_to_shard", c.stick},
               {"seed", int64_t{17}},
               {"resume_epoch", c.resume_epoch},
               {"resume_batch", c.resume_batch},
               {"resume_num_shards", c.resume_shards},
               {"resume_consumed", c.resume_consumed}};
  auto reader = std::make_unique<PlanOnlyReader>(spec, c.n);
  OpContext ctx;
  ctx.max_batch_size = static_cast<int>(c.batch);
  reader->setup(ctx);
  return reader;
}

// Runs `iterations` batches; before each, asks for the `depth` batches ahead and checks every
// prediction against the batch it names once that batch is read.
void check_predictions(const Case& c, int iterations, int depth) {
  SCOPED_TRACE(describe(c));
  std::unique_ptr<PlanOnlyReader> owned = make_reader(c);
  PlanOnlyReader& reader = *owned;
  std::map<int, std::vector<std::vector<int64_t>>> predicted;  // iteration -> predictions
  for (int t = 0; t < iterations; ++t) {
    BatchInfo batch;
    reader.begin_iteration(batch);
    std::vector<int64_t> ids;
    for (const SampleInfo& s : batch.samples) ids.push_back(s.id);
    ASSERT_EQ(reader.batch_indices_ahead(0), ids) << "iteration " << t;
    // Every batch after the first was predicted (at least at k = 1), and rightly.
    ASSERT_TRUE(t == 0 || !predicted[t].empty()) << "iteration " << t;
    for (const auto& p : predicted[t]) ASSERT_EQ(p, ids) << "iteration " << t;
    predicted.erase(t);
    // During run(): k = 1 is the next iteration, as next_batch_indices() says.
    ASSERT_EQ(reader.next_batch_indices(), reader.batch_indices_ahead(1));
    bool ended = false;  // past the next epoch: no farther batch is given either
    for (int k = 1; k <= depth; ++k) {
      std::vector<int64_t> ahead = reader.batch_indices_ahead(k);
      ended = ended || ahead.empty();
      if (ended) {
        ASSERT_TRUE(ahead.empty()) << "iteration " << t << ", k = " << k;
      } else {
        ASSERT_EQ(ahead.size(), static_cast<size_t>(c.batch));
        predicted[t + k].push_back(std::move(ahead));
      }
    }
  }
}

TEST(ReaderBatchIndicesAhead, AgreeWithTheBatchesReadLater) {
  const std::vector<Case> cases = {
      {10, 1, 0, 3},
      {10, 1, 0, 3, true},
      {10, 1, 0, 3, true, true},
      {23, 3, 1, 4, true},
      {23, 3, 2, 4, true, true},
      {23, 3, 0, 4, true, false, true},
      {23, 3, 2, 4, false, true, true},
      {7, 2, 1, 8, true},  // one batch per epoch, mostly filled
      {1000, 4, 3, 16, true, true},
  };
  for (const Case& c : cases) check_predictions(c, 40, 12);
}

TEST(ReaderBatchIndicesAhead, FollowTheResumedPosition) {
  // Started at batch 2 of epoch 1.
  check_predictions({40, 2, 1, 3, true, false, false, 1, 2}, 30, 9);
  // Elastic: epoch 1 was interrupted under 4 shards after 5 samples each; its remainder has its
  // own batch count, then normal epochs follow.
  check_predictions({40, 3, 2, 2, true, false, false, 1, 0, 4, 5}, 30, 9);
  check_predictions({40, 3, 0, 2, true, true, false, 1, 0, 4, 5}, 30, 9);
}

TEST(ReaderBatchIndicesAhead, ReachTheEndOfTheNextEpochAndNoFarther) {
  // 10 samples in batches of 4: 3 batches per epoch.
  std::unique_ptr<PlanOnlyReader> owned = make_reader({10, 1, 0, 4, true});
  PlanOnlyReader& reader = *owned;
  BatchInfo batch;
  reader.begin_iteration(batch);  // epoch 0, batch 0; next: epoch 0, batch 1
  for (int k = 1; k <= 5; ++k) EXPECT_EQ(reader.batch_indices_ahead(k).size(), 4u) << k;
  EXPECT_TRUE(reader.batch_indices_ahead(6).empty());
  reader.begin_iteration(batch);
  reader.begin_iteration(batch);  // epoch 0, batch 2; next: epoch 1, batch 0
  EXPECT_EQ(reader.batch_indices_ahead(6).size(), 4u);
  EXPECT_TRUE(reader.batch_indices_ahead(7).empty());
}

}  // namespace
}  // namespace sluice
