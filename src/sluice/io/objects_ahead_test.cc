// ObjectsAhead's planning on dataset indices and byte counts: how many batches ahead fit the
// limits, and which reads are started, kept, shared and dropped as batches go by. The handles
// here are the indices themselves; the reads through a real prefetcher against an S3-compatible
// server are tested in tests/python/test_s3_lookahead.py.

#include "sluice/io/objects_ahead.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <vector>

namespace sluice {
namespace {

using Batches = std::vector<std::vector<int64_t>>;

// batch_ids(k) over a fixed list: batches[k - 1], empty past its end.
auto ahead_of(const Batches& batches) {
  return [&batches](int64_t k) {
    return k <= static_cast<int64_t>(batches.size()) ? batches[k - 1] : std::vector<int64_t>{};
  };
}
std::optional<size_t> unknown(int64_t) {
  return std::nullopt;
}

TEST(ObjectsAhead, FirstIterationReadsOneBatchAhead) {
  const Batches b = {{0, 1}, {2, 3}, {4, 5}};
  AheadPlan p = plan_objects_ahead(ahead_of(b), {8, size_t{1} << 30}, 0, unknown);
  EXPECT_EQ(p.batches, 1);
  EXPECT_EQ(p.ids, (std::vector<int64_t>{0, 1}));
  p = plan_objects_ahead(ahead_of(b), {8, size_t{1} << 30}, 100, unknown);
  EXPECT_EQ(p.batches, 3);  // then as far as the batches go
  EXPECT_EQ(p.bytes, 600u);
  p = plan_objects_ahead(ahead_of(b), {2, size_t{1} << 30}, 100, unknown);
  EXPECT_EQ(p.batches, 2);  // and no farther than the limit
  EXPECT_EQ(p.ids, (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(ObjectsAhead, StopsAtTheByteBudget) {
  const Batches b = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}};
  AheadPlan p = plan_objects_ahead(ahead_of(b), {12, 1000}, 100, unknown);
  EXPECT_EQ(p.batches, 2);  // 800 bytes; a third batch would hold 1200
  EXPECT_EQ(p.bytes, 800u);
  // Known sizes count instead of the mean.
  auto known = [](int64_t id) -> std::optional<size_t> {
    return id < 4 ? std::optional<size_t>(10) : std::nullopt;
  };
  p = plan_objects_ahead(ahead_of(b), {12, 1000}, 100, known);
  EXPECT_EQ(p.batches, 3);  // 40 + 2 * 400
  EXPECT_EQ(p.bytes, 840u);
  p = plan_objects_ahead(ahead_of(b), {12, 1000}, 60, known);
  EXPECT_EQ(p.batches, 4);  // 40 + 3 * 240
  EXPECT_EQ(p.bytes, 760u);
  // The next batch is read whatever its size.
  p = plan_objects_ahead(ahead_of(b), {12, 10}, 100, unknown);
  EXPECT_EQ(p.batches, 1);
  EXPECT_EQ(p.bytes, 400u);
}

TEST(ObjectsAhead, ObjectsOfSeveralBatchesCountOnce) {
  // A padded last batch and the next epoch: [0 1 2 3] [4 4 4 4] [0 1 2 3] [4 4 4 4].
  const Batches b = {{0, 1, 2, 3}, {4, 4, 4, 4}, {0, 1, 2, 3}, {4, 4, 4, 4}};
  AheadPlan p = plan_objects_ahead(ahead_of(b), {8, 1000}, 100, unknown);
  EXPECT_EQ(p.batches, 4);
  EXPECT_EQ(p.bytes, 500u);
  EXPECT_EQ(p.ids, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(plan_objects_ahead(ahead_of(b), {8, 499}, 100, unknown).batches, 1);
}

// Reads are the indices they read; `started` counts the reads started per index.
struct Reads {
  std::map<int64_t, int> started;
  std::map<int64_t, std::weak_ptr<int64_t>> live;
  ObjectsAhead<std::shared_ptr<int64_t>>::Start start() {
    return [this](int64_t id) {
      ++started[id];
      auto r = std::make_shared<int64_t>(id);
      live[id] = r;
      return r;
    };
  }
  static std::shared_ptr<int64_t> same(const std::shared_ptr<int64_t>& r) { return r; }
};

TEST(ObjectsAhead, EachObjectIsStartedOnceWhileAhead) {
  // Two epochs of 5 objects in padded batches of 4, read with everything ahead.
  const Batches order = {{0, 1, 2, 3}, {4, 4, 4, 4}, {0, 1, 2, 3}, {4, 4, 4, 4}};
  Reads reads;
  ObjectsAhead<std::shared_ptr<int64_t>> ahead({8, 1000},
                                               [](auto&) { return std::optional<size_t>(10); });
  ahead.read(1, 10);  // an object read before: the first iteration may read past one batch
  for (size_t t = 0; t < order.size(); ++t) {
    std::vector<std::shared_ptr<int64_t>> batch;
    for (int64_t id : order[t]) batch.push_back(ahead.take(id, reads.start(), Reads::same));
    for (size_t i = 0; i < batch.size(); ++i) ASSERT_EQ(*batch[i], order[t][i]);
    const Batches rest(order.begin() + t + 1, order.end());
    ahead.plan(ahead_of(rest), reads.start(), Reads::same);
    ahead.read(batch.size(), 10 * batch.size());
  }
  EXPECT_EQ(reads.started, (std::map<int64_t, int>{{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}}));
  EXPECT_EQ(ahead.batches_ahead(), 0);
  for (auto& [id, r] : reads.live) EXPECT_TRUE(r.expired()) << id << " was kept, not ahead";
}

TEST(ObjectsAhead, DropsWhatIsNoLongerAheadAndSharesWhatIsTaken) {
  Reads reads;
  int shared = 0;
  auto copy = [&](const std::shared_ptr<int64_t>& r) {
    ++shared;
    return std::make_shared<int64_t>(*r);
  };
  ObjectsAhead<std::shared_ptr<int64_t>> ahead({1, 1000}, [](auto&) { return std::nullopt; });
  auto a = ahead.take(7, reads.start(), copy);
  auto b = ahead.take(7, reads.start(), copy);  // twice in a batch: a second handle
  EXPECT_NE(a, b);
  EXPECT_EQ(*b, 7);
  Batches next = {{7, 8}};
  ahead.plan(ahead_of(next), reads.start(), copy);  // 7 is taken: shared, not started again
  EXPECT_EQ(shared, 2);
  EXPECT_EQ(reads.started, (std::map<int64_t, int>{{7, 1}, {8, 1}}));
  EXPECT_EQ(ahead.bytes_ahead(), 0);  // nothing read yet: no estimate
  auto c = ahead.take(9, reads.start(), copy);
  next = {{9, 10}};
  ahead.plan(ahead_of(next), reads.start(), copy);
  EXPECT_TRUE(reads.live[8].expired());  // not ahead any more: dropped
  ahead.forget(10);                      // after a failure: asked for again
  ahead.take(10, reads.start(), copy);
  EXPECT_EQ(reads.started[10], 2);
}

TEST(ObjectsAhead, StartsTheNewReadsTogetherInTheBatchesOrder) {
  // What a reader merging neighbours' reads gets: one call per plan with the objects not yet
  // ahead (nor taken), in the order of the batches.
  Reads reads;
  std::vector<std::vector<int64_t>> calls;
  ObjectsAhead<std::shared_ptr<int64_t>>::StartAll start_all =
      [&](const std::vector<int64_t>& ids) {
        calls.push_back(ids);
        std::vector<std::shared_ptr<int64_t>> out;
        for (int64_t id : ids) out.push_back(reads.start()(id));
        return out;
      };
  ObjectsAhead<std::shared_ptr<int64_t>> ahead({3, 1000},
                                               [](auto&) { return std::optional<size_t>(10); });
  ahead.read(1, 10);
  auto a = ahead.take(0, reads.start(), Reads::same);
  Batches next = {{5, 4, 0}, {6, 7}, {8}};
  ahead.plan(ahead_of(next), start_all, Reads::same);
  next = {{6, 7}, {8}, {9, 5}};
  ahead.plan(ahead_of(next), start_all, Reads::same);
  EXPECT_EQ(calls, (std::vector<std::vector<int64_t>>{{5, 4, 6, 7, 8}, {9}}));
  EXPECT_EQ(*ahead.take(5, reads.start(), Reads::same), 5);  // 5 kept ahead, not started again
  EXPECT_EQ(reads.started[5], 1);
  EXPECT_TRUE(reads.live[4].expired());  // not ahead any more: dropped
}

}  // namespace
}  // namespace sluice
