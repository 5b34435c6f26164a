// Pipeline document loading: malformed documents and parameters are InvalidArgument, never
// another exception or undefined behaviour. Regression inputs from tools/fuzz/fuzz_pipeline_json
// (also kept in tests/fuzz_corpus/fuzz_pipeline_json/).

#include "sluice/exec/pipeline.h"

#include <gtest/gtest.h>

#include "sluice/core/error.h"

namespace sluice {
namespace {

TEST(PipelineDeserialize, NonStringFormatOrVersionIsInvalidArgument) {
  // value("format", "") threw nlohmann::json::type_error for these.
  EXPECT_THROW(Pipeline::deserialize(R"({"format": {"batch_size": "x"}, "version": 1})"),
               InvalidArgument);
  EXPECT_THROW(Pipeline::deserialize(R"({"format": 7, "ops": [], "outputs": []})"),
               InvalidArgument);
  EXPECT_THROW(Pipeline::deserialize(R"({"format": "sluice-pipeline", "version": "1"})"),
               InvalidArgument);
  EXPECT_THROW(Pipeline::deserialize(R"({"format": "sluice-pipeline", "version": 1e300})"),
               InvalidArgument);
  EXPECT_THROW(Pipeline::deserialize(R"([1, 2])"), InvalidArgument);
}

TEST(PipelineParams, IntegerParametersMustBeRepresentable) {
  PipelineParams p;
  // A float out of int range was converted with undefined behaviour; out-of-range integers
  // wrapped silently (4294967297 became batch_size 1).
  for (const char* doc :
       {R"({"batch_size": 1e300})", R"({"batch_size": -1e300})", R"({"batch_size": 4294967297})",
        R"({"num_threads": 2.5})", R"({"seed": 1e19})", R"({"seed": 18446744073709551615})",
        R"({"prefetch_queue_depth": 4294967298})",
        R"({"prefetch_queue_depth": {"cpu_size": 2, "gpu_size": -4294967295}})",
        R"({"exec_async": 1})", R"({"batch_size": "8"})"}) {
    EXPECT_THROW(p.update_from_json(nlohmann::json::parse(doc)), InvalidArgument) << doc;
  }
}

TEST(PipelineParams, IntegerParametersAcceptIntegralValues) {
  PipelineParams p;
  p.update_from_json(nlohmann::json::parse(
      R"({"batch_size": 8.0, "num_threads": true, "seed": 9223372036854775807,
          "bytes_per_sample": 0, "device_id": null,
          "prefetch_queue_depth": {"cpu_size": 3, "gpu_size": 4}})"));
  EXPECT_EQ(p.batch_size, 8);
  EXPECT_EQ(p.num_threads, 1);
  EXPECT_EQ(p.seed, INT64_MAX);
  EXPECT_EQ(p.device_id, -1);
  EXPECT_EQ(p.cpu_queue_depth, 3);
  EXPECT_EQ(p.gpu_queue_depth, 4);
  EXPECT_TRUE(p.separated_queues);
  p.update_from_json(nlohmann::json::parse(R"({"prefetch_queue_depth": 5, "seed": -1})"));
  EXPECT_EQ(p.cpu_queue_depth, 5);
  EXPECT_EQ(p.gpu_queue_depth, 5);
  EXPECT_EQ(p.seed, -1);
}

TEST(PipelineParams, ARestoredStartIsReadButNotSerialised) {
  PipelineParams p;
  p.update_from_json(nlohmann::json::parse(R"({"first_epoch": 2, "first_sample": 48})"));
  EXPECT_EQ(p.first_epoch, 2);
  EXPECT_EQ(p.first_sample, 48);
  EXPECT_FALSE(p.to_json().contains("first_epoch"));
  EXPECT_FALSE(p.to_json().contains("first_sample"));
}

}  // namespace
}  // namespace sluice
