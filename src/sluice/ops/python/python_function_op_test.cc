#include "sluice/ops/python/python_function_op.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sluice/exec/pipeline.h"

namespace sluice {
namespace {

// A runner standing in for the bindings': output k is input 0 plus k, in float32, or it throws
// a HostFunctionError with a cause when the input's first value is negative.
std::shared_ptr<const void> g_cause = std::make_shared<int>(7);

void fake_runner(HostFunctionCall& call) {
  const TensorList& in = *call.inputs.at(0);
  for (size_t k = 0; k < call.outputs.size(); ++k) {
    TensorList& out = *call.outputs[k];
    out.resize(in.shapes(), DType::kFloat32);
    for (int i = 0; i < call.batch_size; ++i) {
      const float* src = in.sample<float>(i);
      if (src[0] < 0) throw HostFunctionError("function 'f' raised on sample 0", g_cause);
      for (int64_t j = 0; j < volume(in.shape(i)); ++j)
        out.sample<float>(i)[j] = src[j] + static_cast<float>(k);
    }
  }
}

PipelineParams params() {
  PipelineParams p;
  p.batch_size = 3;
  p.num_threads = 1;
  p.seed = 1;
  return p;
}

std::unique_ptr<Pipeline> make(float lo, nlohmann::json args) {
  PipelineGraph g;
  auto x = g.add("random.uniform", "x", "", {}, {}, {{"range", {lo, lo + 1}}, {"shape", {2, 3}}});
  args["function_id"] = 1;
  auto f = g.add("python_function", "f", "", {x[0]}, {}, args);
  g.outputs = f;
  return std::make_unique<Pipeline>(std::move(g), params());
}

TEST(PythonFunctionOp, OutputsCarryTheRunnersDataAndTheGivenLayouts) {
  set_host_function_runner(&fake_runner);
  auto pipe = make(1.0f, {{"num_outputs", 3}, {"output_layouts", {"AB", "CD"}}});
  auto out = pipe->run();
  ASSERT_EQ(out->tensors.size(), 3u);
  EXPECT_EQ(out->tensors[0].layout(), "AB");
  EXPECT_EQ(out->tensors[1].layout(), "CD");
  EXPECT_EQ(out->tensors[2].layout(), "");
  EXPECT_EQ(out->tensors[2].sample<float>(1)[4], out->tensors[0].sample<float>(1)[4] + 2);
}

TEST(PythonFunctionOp, RefusesMoreLayoutsThanOutputsAndLayoutsOfAnotherRank) {
  set_host_function_runner(&fake_runner);
  EXPECT_THROW(make(1.0f, {{"output_layouts", {"AB", "CD"}}})->run(), InvalidArgument);
  EXPECT_THROW(make(1.0f, {{"output_layouts", {"ABC"}}})->run(), InvalidArgument);
}

TEST(PythonFunctionOp, TheFunctionsErrorKeepsItsCauseAndGainsTheOperator) {
  set_host_function_runner(&fake_runner);
  auto pipe = make(-5.0f, {});
  try {
    pipe->run();
    FAIL() << "no error";
  } catch (const HostFunctionError& e) {
    EXPECT_EQ(e.cause(), g_cause);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("\"f\""), std::string::npos) << msg;
    EXPECT_NE(msg.find("iteration 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("raised on sample 0"), std::string::npos) << msg;
  }
}

TEST(PythonFunctionOp, WithoutARunnerItIsNotImplemented) {
  set_host_function_runner(nullptr);
  EXPECT_THROW(make(1.0f, {})->run(), NotImplemented);
  set_host_function_runner(&fake_runner);
}

}  // namespace
}  // namespace sluice
