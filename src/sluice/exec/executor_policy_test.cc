#include "sluice/exec/executor_policy.h"

#include <gtest/gtest.h>

#include "sluice/exec/executor.h"
#include "sluice/graph/graph.h"

namespace sluice {
namespace {

// A compiled graph of operators on `devices`, in execution order.
CompiledGraph graph_on(std::vector<OpDevice> devices) {
  CompiledGraph g;
  for (OpDevice d : devices) {
    OpSpec op;
    op.device = d;
    g.ops.push_back(op);
  }
  return g;
}

ExecutorParams policy_params(int threads, int depth, bool pipelined = true) {
  ExecutorParams p;
  p.num_threads = threads;
  p.cpu_queue_depth = p.gpu_queue_depth = pipelined ? depth : 1;
  p.pipelined = pipelined;
  return p;
}

TEST(StagePlan, CpuOnlyGraphHoldsTheQueueAndOneIterationPerWorker) {
  const CompiledGraph g = graph_on({OpDevice::kCPU, OpDevice::kCPU});
  StagePlan one = StagePlan::make(g, policy_params(4, 2));
  EXPECT_FALSE(one.has_gpu_stage());
  EXPECT_EQ(one.cpu_workers, 1);
  EXPECT_EQ(one.output_depth, 2);
  EXPECT_EQ(one.cpu_only_in_flight, 2);
  EXPECT_EQ(one.cpu_slots, 3);
  EXPECT_EQ(one.gpu_slots, 0);
  StagePlan two = StagePlan::make(g, policy_params(8, 2));
  EXPECT_EQ(two.cpu_workers, 2);
  EXPECT_EQ(two.cpu_only_in_flight, 4);
  EXPECT_EQ(two.cpu_slots, 4);
}

TEST(StagePlan, MixedThreadAndEachExtraWorkerGiveTheCpuStageASlot) {
  const CompiledGraph g = graph_on({OpDevice::kCPU, OpDevice::kMixed, OpDevice::kGPU});
  StagePlan p = StagePlan::make(g, policy_params(12, 3));
  EXPECT_EQ(p.first_gpu_op, 1);
  EXPECT_EQ(p.mixed_end, 2);
  EXPECT_TRUE(p.has_mixed_thread());
  EXPECT_EQ(p.cpu_workers, 3);
  EXPECT_EQ(p.output_depth, 3);
  EXPECT_EQ(p.cpu_in_flight, 3 + 1 + 2);
  EXPECT_EQ(p.cpu_slots, 6);
  EXPECT_EQ(p.gpu_slots, 4);
  ExecutorParams given = policy_params(12, 3);
  given.cpu_workers = 1;
  EXPECT_EQ(StagePlan::make(g, given).cpu_in_flight, 3 + 1);
}

TEST(StagePlan, OneDeviceThreadWhenNotPipelinedOrWithoutGpuOperators) {
  const CompiledGraph both = graph_on({OpDevice::kCPU, OpDevice::kMixed, OpDevice::kGPU});
  StagePlan serial = StagePlan::make(both, policy_params(8, 2, /*pipelined=*/false));
  EXPECT_TRUE(serial.serial);
  EXPECT_FALSE(serial.has_mixed_thread());
  EXPECT_EQ(serial.cpu_workers, 1);
  EXPECT_EQ(serial.cpu_in_flight, 1);
  EXPECT_EQ(serial.gpu_slots, 2);
  StagePlan mixed_only =
      StagePlan::make(graph_on({OpDevice::kCPU, OpDevice::kMixed}), policy_params(2, 2));
  EXPECT_TRUE(mixed_only.has_gpu_stage());
  EXPECT_FALSE(mixed_only.has_mixed_thread());
  EXPECT_EQ(mixed_only.cpu_in_flight, 2);
}

}  // namespace
}  // namespace sluice
