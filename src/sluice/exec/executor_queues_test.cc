#include "sluice/exec/executor_queues.h"

#include <gtest/gtest.h>

#include <thread>

#include "sluice/exec/executor_stats.h"

namespace sluice {
namespace {

// A CPU operator, a mixed one and a GPU one, each device part on a thread of its own,
// prefetch_queue_depth 3.
StagePlan plan_with_mixed_thread() {
  StagePlan p;
  p.num_ops = 3;
  p.first_gpu_op = 1;
  p.mixed_end = 2;
  p.output_depth = 3;
  p.cpu_in_flight = p.cpu_slots = 8;
  p.gpu_slots = p.output_depth + 1;
  return p;
}

// Runs one scheduled iteration through the CPU stage and both device parts; its GPU slot.
int run_one(StageQueues& q) {
  StageQueues::CpuIteration it;
  EXPECT_TRUE(q.start_cpu(it));
  EXPECT_TRUE(q.finish_cpu(static_cast<int>(it.index % 8), false, nullptr));
  Handoff h;
  EXPECT_TRUE(q.start_device(DevicePart::kMixed, h));
  q.finish_mixed(h);
  EXPECT_TRUE(q.start_device(DevicePart::kGpu, h));
  q.publish(std::make_shared<Outputs>());
  return h.gpu;
}

void consume(StageQueues& q) {
  q.share();
  q.release();
}

TEST(StageQueues, LoweringTheDepthTakesTheSlotFreeLongestOutOfTheRing) {
  const StagePlan plan = plan_with_mixed_thread();
  ExecutorStats stats(plan.num_ops, false);
  StageQueues q(plan, stats);
  for (int i = 0; i < 20; ++i) q.schedule();
  EXPECT_EQ(run_one(q), 0);
  EXPECT_EQ(run_one(q), 1);
  EXPECT_EQ(run_one(q), 2);  // three published: the ring's fourth slot is free

  int slot = -1;
  ASSERT_TRUE(q.retire_gpu_slot(slot));
  EXPECT_EQ(slot, 3);
  EXPECT_EQ(q.output_depth(), 2);

  // Every slot left is published: lowering again waits for the consumer to release the oldest.
  std::thread consumer([&q] { consume(q); });
  ASSERT_TRUE(q.retire_gpu_slot(slot));
  consumer.join();
  EXPECT_EQ(slot, 0);
  EXPECT_EQ(q.output_depth(), 1);
  EXPECT_FALSE(q.retire_gpu_slot(slot)) << "the depth never goes below 1";

  // Released outputs free their slots in order; the ring now turns over 1 and 2.
  consume(q);
  EXPECT_EQ(run_one(q), 1);
  consume(q);
  EXPECT_EQ(run_one(q), 2);

  // A reset keeps the lowered ring.
  q.stop();
  q.clear();
  q.start();
  for (int i = 0; i < 4; ++i) q.schedule();
  for (int expected : {1, 2, 1}) {
    EXPECT_EQ(run_one(q), expected);
    consume(q);
  }
}

TEST(StageQueues, LoweringStopsWithTheExecutor) {
  const StagePlan plan = plan_with_mixed_thread();
  ExecutorStats stats(plan.num_ops, false);
  StageQueues q(plan, stats);
  for (int i = 0; i < 4; ++i) q.schedule();
  for (int i = 0; i < 3; ++i) run_one(q);
  int slot = -1;
  ASSERT_TRUE(q.retire_gpu_slot(slot));  // the free fourth
  std::thread stopper([&q] { q.stop(); });
  EXPECT_FALSE(q.retire_gpu_slot(slot)) << "no slot free: waits, and returns when stopped";
  stopper.join();
}

}  // namespace
}  // namespace sluice
