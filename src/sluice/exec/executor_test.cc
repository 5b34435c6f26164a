#include "sluice/exec/executor.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "sluice/exec/pipeline.h"
#include "sluice/graph/schema_registry.h"

namespace sluice {
namespace {

// A test operator: copies its input, fails on (iteration, sample) or sleeps.
SLUICE_REGISTER_SCHEMA(OpSchema("_test.probe")
                           .num_inputs(1, 1)
                           .arg("fail_iteration", ArgType::kInt, int64_t{-1}, "")
                           .arg("fail_sample", ArgType::kInt, int64_t{0}, "")
                           .arg("sleep_ms", ArgType::kInt, int64_t{0}, "")
                           .arg("by_cost", ArgType::kBool, false, "")
                           .arg("log", ArgType::kBool, false, "")
                           .internal());

// With by_cost, the probe gives sample i the cost i and records the order samples start in.
std::mutex g_started_mu;
std::vector<int> g_started;

// With log, the probe records when each of its runs began and ended.
struct ProbeRun {
  std::string op;
  int64_t iteration;
  std::chrono::steady_clock::time_point begin, end;
};
std::mutex g_runs_mu;
std::vector<ProbeRun> g_runs;

class Probe : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const auto begin = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(spec_.arg<int64_t>("sleep_ms")));
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), in.dtype());
    int64_t fail_it = spec_.arg<int64_t>("fail_iteration");
    int fail_sample = spec_.arg<int>("fail_sample");
    const bool by_cost = spec_.arg<bool>("by_cost");
    std::vector<double> cost;
    for (int i = 0; by_cost && i < ws.batch_size(); ++i) cost.push_back(i);
    ws.for_each_sample(
        [&](int i, int) {
          if (by_cost) {
            std::lock_guard<std::mutex> lk(g_started_mu);
            g_started.push_back(i);
          }
          if (ws.batch().iteration == fail_it && i == fail_sample) {
            throw DecodeError("corrupt data");
          }
          std::memcpy(out.raw_sample(i), in.raw_sample(i), in.sample_bytes(i));
        },
        1, cost);
    if (spec_.arg<bool>("log")) {
      std::lock_guard<std::mutex> lk(g_runs_mu);
      g_runs.push_back({spec_.name, ws.batch().iteration, begin, std::chrono::steady_clock::now()});
    }
  }
};
SLUICE_REGISTER_OPERATOR("_test.probe", OpDevice::kCPU, Probe);

PipelineGraph random_graph(nlohmann::json probe_args = nlohmann::json::object()) {
  PipelineGraph g;
  auto flip = g.add("random.coin_flip", "flip", "", {}, {}, {{"shape", {7}}});
  auto uni =
      g.add("random.uniform", "uni", "", {}, {}, {{"range", {0.0, 10.0}}, {"shape", {3, 5}}});
  auto probe = g.add("_test.probe", "probe", "", {uni[0]}, {}, probe_args);
  auto p = g.add("random.coin_flip", "p", "", {}, {}, {{"probability", 0.3}});
  auto sum = g.add("_arithmetic", "sum", "", {probe[0], p[0]}, {}, {{"op", "add"}});
  auto mixed = g.add("random.uniform", "mixed", "", {}, {{"range", uni[0]}}, {});
  (void)mixed;
  auto cast = g.add("cast", "cast", "", {sum[0]}, {}, {{"dtype", "UINT8"}});
  g.outputs = {flip[0], cast[0], sum[0], p[0]};
  return g;
}

PipelineParams params(int threads, int depth, int batch = 16) {
  PipelineParams p;
  p.batch_size = batch;
  p.num_threads = threads;
  p.seed = 1234;
  p.cpu_queue_depth = p.gpu_queue_depth = depth;
  return p;
}

std::vector<std::vector<uint8_t>> run_bytes(Pipeline& pipe, int iterations) {
  std::vector<std::vector<uint8_t>> all;
  for (int it = 0; it < iterations; ++it) {
    auto out = pipe.run();
    for (const auto& t : out->tensors) {
      const uint8_t* p = static_cast<const uint8_t*>(t.raw_data());
      all.emplace_back(p, p + t.total_bytes());
    }
  }
  return all;
}

TEST(Executor, RunsAGraphOfRandomAndArithmeticOperators) {
  Pipeline pipe(random_graph(), params(2, 2));
  auto out = pipe.run();
  ASSERT_EQ(out->tensors.size(), 4u);
  const TensorList& flip = out->tensors[0];
  EXPECT_EQ(flip.num_samples(), 16);
  EXPECT_EQ(flip.shape(0), Shape({7}));
  EXPECT_EQ(flip.dtype(), DType::kInt32);
  for (int i = 0; i < 16; ++i) {
    for (int k = 0; k < 7; ++k)
      EXPECT_TRUE(flip.sample<int32_t>(i)[k] == 0 || flip.sample<int32_t>(i)[k] == 1);
  }
  const TensorList& sum = out->tensors[2];  // float + int32 -> float
  EXPECT_EQ(sum.dtype(), DType::kFloat32);
  EXPECT_EQ(sum.shape(3), Shape({3, 5}));
  EXPECT_EQ(out->tensors[3].shape(0), Shape({}));
}

TEST(Executor, OutputsAreBitIdenticalAcrossThreadsAndPrefetchDepth) {
  Pipeline ref(random_graph(), params(1, 1));
  auto expected = run_bytes(ref, 5);
  for (int threads : {1, 2, 4, 8}) {
    for (int depth : {1, 2, 3}) {
      Pipeline pipe(random_graph(), params(threads, depth));
      EXPECT_EQ(run_bytes(pipe, 5), expected) << "threads " << threads << " depth " << depth;
    }
  }
  PipelineParams other = params(2, 2);
  other.seed = 99;
  Pipeline pipe(random_graph(), other);
  EXPECT_NE(run_bytes(pipe, 5), expected);
}

TEST(Executor, WorkerErrorNamesOperatorAndSampleThenResetRecovers) {
  Pipeline pipe(random_graph({{"fail_iteration", 2}, {"fail_sample", 5}}), params(8, 2));
  pipe.run();
  pipe.run();
  try {
    pipe.run();
    FAIL() << "expected a DecodeError";
  } catch (const DecodeError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("_test.probe"), std::string::npos) << msg;
    EXPECT_NE(msg.find("\"probe\""), std::string::npos) << msg;
    EXPECT_NE(msg.find("sample 5"), std::string::npos) << msg;
    EXPECT_NE(msg.find("iteration 2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("corrupt data"), std::string::npos) << msg;
  }
  EXPECT_THROW(pipe.executor().share_outputs(), Error);
  pipe.executor().reset();
  auto out = pipe.run();
  EXPECT_EQ(out->tensors[0].num_samples(), 16);
}

TEST(Executor, CostliestSamplesStartFirstAndWorkTimeIsReported) {
  g_started.clear();
  Pipeline pipe(random_graph({{"by_cost", true}}), params(1, 1));  // one worker: a strict order
  Pipeline ref(random_graph(), params(1, 1));
  EXPECT_EQ(run_bytes(pipe, 2), run_bytes(ref, 2));
  std::vector<int> expected;
  for (int round = 0; round < 2; ++round) {
    for (int i = 15; i >= 0; --i) expected.push_back(i);
  }
  EXPECT_EQ(g_started, expected);
  const auto stats = pipe.executor().statistics();
  EXPECT_GT(stats["probe"]["work_time_ms"].get<double>(), 0.0);
  EXPECT_LE(stats["probe"]["work_time_ms"].get<double>(),
            stats["probe"]["total_time_ms"].get<double>());
}

TEST(Executor, CostOrderStillReportsTheLowestFailingSample) {
  Pipeline pipe(random_graph({{"by_cost", true}, {"fail_iteration", 0}, {"fail_sample", 3}}),
                params(3, 1));
  try {
    pipe.run();
    FAIL() << "expected a DecodeError";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("sample 3"), std::string::npos) << e.what();
  }
}

// Note [Two CPU iterations]: the second probe of one iteration runs while the first probe runs
// the next iteration; each probe still runs its iterations one at a time and in order.
// Runs a chain of `ops` sleeping probes for `iterations` and checks Note [Two CPU iterations]:
// each probe runs its iterations in order and never two at once, the outputs equal the
// non-pipelined run's, and the CPU stage is busy nearly all the time. Returns how often all
// probes ran at once, each on the iteration after the next probe's.
int check_cpu_workers(int ops, int workers, int depth, int iterations, int threads = 8) {
  PipelineGraph g;
  auto t = g.add("random.uniform", "uni", "", {}, {}, {{"shape", {4}}});
  nlohmann::json args = {{"sleep_ms", 40}, {"log", true}};
  for (int k = 0; k < ops; ++k)
    t = g.add("_test.probe", std::string(1, 'a' + k), "", {t[0]}, {}, args);
  g.outputs = {t[0]};
  g_runs.clear();
  std::vector<std::vector<uint8_t>> got;
  {
    Pipeline pipe(g, params(threads, depth));
    got = run_bytes(pipe, iterations);
    // The consumer always waits: the CPU stage is busy nearly all the time, though its workers
    // rarely all stop.
    const auto ps = pipe.executor().pipeline_statistics();
    EXPECT_GT(ps["cpu_stage_busy_s"].get<double>(), 0.8 * ps["wall_time_s"].get<double>());
    EXPECT_LE(ps["cpu_stage_busy_s"].get<double>(), ps["wall_time_s"].get<double>() + 1e-3);
    EXPECT_EQ(ps["cpu_workers"].get<int>(), workers);
  }
  std::map<std::string, std::vector<ProbeRun>> by_op;
  {
    std::lock_guard<std::mutex> lk(g_runs_mu);
    for (const ProbeRun& r : g_runs) by_op[r.op].push_back(r);
  }
  PipelineParams serial = params(threads, depth);
  serial.exec_pipelined = false;
  Pipeline ref(g, serial);
  EXPECT_EQ(got, run_bytes(ref, iterations));

  for (const auto& [op, runs] : by_op) {
    EXPECT_GE(runs.size(), static_cast<size_t>(iterations)) << op;
    for (size_t k = 1; k < runs.size(); ++k) {
      EXPECT_EQ(runs[k].iteration, runs[k - 1].iteration + 1) << op;
      EXPECT_GE(runs[k].begin, runs[k - 1].end) << op << " ran two iterations at once";
    }
  }
  // Probe k on iteration i + (ops - 1 - k), for every k, overlapping in time.
  int together = 0;
  for (const ProbeRun& last : by_op[std::string(1, 'a' + ops - 1)]) {
    auto begin = last.begin;
    auto end = last.end;
    for (int k = 0; k < ops - 1; ++k) {
      for (const ProbeRun& r : by_op[std::string(1, 'a' + k)]) {
        if (r.iteration != last.iteration + (ops - 1 - k)) continue;
        begin = std::max(begin, r.begin);
        end = std::min(end, r.end);
      }
    }
    together += begin < end;
  }
  return together;
}

TEST(Executor, TwoCpuIterationsOverlapOneOperatorApart) {
  // Two CPU workers from 8 threads: probe a of iteration k+1 runs while probe b runs iteration k.
  EXPECT_GE(check_cpu_workers(2, 2, 2, 6), 3);
}

TEST(Executor, ThreeCpuWorkersFromTwelveThreadsAndThreeIterationsAhead) {
  EXPECT_EQ(Executor::default_cpu_workers(12, 3), 3);
  EXPECT_EQ(Executor::default_cpu_workers(16, 2), 2);  // the consumer asks for 2 ahead only
  EXPECT_EQ(Executor::default_cpu_workers(11, 3), 2);
  EXPECT_EQ(Executor::default_cpu_workers(7, 3), 1);
  // Three workers and three iterations ahead: three probes at once, one iteration apart.
  EXPECT_GE(check_cpu_workers(3, 3, 3, 9, 12), 3);
}

TEST(Executor, MoreCpuWorkersFromTheEnvironment) {
  setenv("SLUICE_CPU_STAGE_WORKERS", "3", 1);
  EXPECT_GE(check_cpu_workers(3, 3, 3, 9), 3);
  setenv("SLUICE_CPU_STAGE_WORKERS", "9", 1);
  try {
    Pipeline pipe(random_graph(), params(8, 2));
    ADD_FAILURE() << "9 workers accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("SLUICE_CPU_STAGE_WORKERS='9'"), std::string::npos);
  }
  unsetenv("SLUICE_CPU_STAGE_WORKERS");
}

TEST(Executor, DestroyingWithWorkInFlightReturnsPromptly) {
  auto t0 = std::chrono::steady_clock::now();
  {
    Pipeline pipe(random_graph({{"sleep_ms", 50}}), params(8, 3));
    for (int i = 0; i < 5; ++i) pipe.executor().schedule_run();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_LT(ms, 1000);
}

TEST(Executor, SerializeDeserializeGivesIdenticalOutputs) {
  Pipeline a(random_graph(), params(2, 2));
  std::string doc = a.serialize();
  auto b = Pipeline::deserialize(doc);
  EXPECT_EQ(b->params().seed, 1234);
  EXPECT_EQ(run_bytes(a, 3), run_bytes(*b, 3));
  EXPECT_THROW(Pipeline::deserialize("{\"format\": \"pickle\"}"), InvalidArgument);
  EXPECT_THROW(Pipeline::deserialize("not json"), InvalidArgument);
}

TEST(Executor, HoldingMoreThanTheQueueDepthIsAnError) {
  Pipeline pipe(random_graph(), params(8, 1));  // two CPU workers: one may wait for room
  Executor& ex = pipe.executor();
  ex.schedule_run();
  ex.schedule_run();
  auto held = ex.share_outputs();
  EXPECT_THROW(ex.share_outputs(), InvalidArgument);
  ex.release_outputs();
  EXPECT_NO_THROW(ex.share_outputs());
  // A finished iteration may be waiting for room (Note [Two CPU iterations]): reset() drops it.
  ex.schedule_run();
  ex.schedule_run();
  ex.reset();
  auto out = pipe.run();
  EXPECT_EQ(out->tensors[0].num_samples(), 16);
}

TEST(Graph, ErrorsNameOperatorAndArgument) {
  PipelineGraph g;
  try {
    g.add("random.coin_flip", "f", "", {}, {}, {{"probabilty", 0.5}});
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("probabilty"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("random.coin_flip"), std::string::npos);
  }
  EXPECT_THROW(g.add("random.coin_flip", "f", "", {}, {}, {{"probability", "high"}}),
               InvalidArgument);
  EXPECT_THROW(g.add("no.such_op", "x", "", {}, {}, {}), InvalidArgument);
}

TEST(Graph, PrunesUnusedAndOrdersByStage) {
  PipelineGraph g;
  auto a = g.add("random.coin_flip", "a", "", {}, {}, {});
  g.add("random.coin_flip", "unused", "", {}, {}, {});
  g.add("random.coin_flip", "kept", "", {}, {}, {{"preserve", true}});
  auto c = g.add("cast", "c", "", {a[0]}, {}, {{"dtype", "FLOAT"}});
  g.outputs = {c[0]};
  CompiledGraph cg = compile_graph(g);
  ASSERT_EQ(cg.ops.size(), 3u);
  EXPECT_EQ(cg.find_op("unused"), -1);
  EXPECT_GE(cg.find_op("kept"), 0);
  EXPECT_LT(cg.find_op("a"), cg.find_op("c"));
}

TEST(Graph, GpuDataCannotFlowBackToTheCpu) {
  PipelineGraph g;
  auto a = g.add("random.coin_flip", "a", "", {}, {}, {});
  auto gpu = g.add("_to_gpu", "to_gpu", "mixed", {a[0]}, {}, {});
  auto back = g.add("cast", "back", "cpu", {gpu[0]}, {}, {{"dtype", "FLOAT"}});
  g.outputs = {back[0]};
  try {
    compile_graph(g);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("cannot flow back"), std::string::npos) << e.what();
  }
  PipelineGraph h;
  auto x = h.add("random.coin_flip", "x", "", {}, {}, {});
  auto y = h.add("cast", "y", "gpu", {x[0]}, {}, {{"dtype", "FLOAT"}});
  h.outputs = {y[0]};
  EXPECT_THROW(compile_graph(h), InvalidArgument);  // needs .gpu()
  PipelineGraph k;
  auto u = k.add("random.coin_flip", "u", "", {}, {}, {});
  auto v = k.add("_to_gpu", "v", "mixed", {u[0]}, {}, {});
  auto w = k.add("cast", "w", "", {v[0]}, {}, {{"dtype", "FLOAT"}});
  k.outputs = {w[0]};
  CompiledGraph cg = compile_graph(k);
  EXPECT_EQ(cg.ops[cg.find_op("w")].device, OpDevice::kGPU);  // inferred from its input
}

}  // namespace
}  // namespace sluice
