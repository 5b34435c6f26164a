// libFuzzer target: the pipeline JSON loader, never executing anything.
//
//  1. Pipeline::deserialize itself (JSON parse, format / version check, parameters with
//     PipelineParams::update_from_json, graph_from_json), called with the override
//     {"batch_size": 0}: the Pipeline constructor rejects that before it compiles the graph or
//     builds an executor, so no thread, file or device is ever touched. The only allowed
//     outcome is InvalidArgument.
//  2. The data-only graph layer on the same document: graph_from_json, compile_graph
//     (validation, device inference, pruning, ordering), and for a valid graph the exporters
//     (graph_to_json must load back into the same graph; graph_to_dot).
// A malformed document may only raise sluice::InvalidArgument; every other exception, crash or
// sanitizer report is a bug.

#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_common.h"
#include "sluice/core/error.h"
#include "sluice/exec/pipeline.h"
#include "sluice/graph/graph.h"

namespace {

using namespace sluice;
using sluice::fuzz::fuzz_fail;
using sluice::fuzz::fuzz_fail_unexpected;

volatile size_t g_sink;

void deserialize(const std::string& text) {
  static const nlohmann::json kNoExecutor = {{"batch_size", 0}};
  try {
    (void)Pipeline::deserialize(text, kNoExecutor);
  } catch (const InvalidArgument& e) {
    sluice::fuzz::note_expected("Pipeline::deserialize", e);
    return;
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("Pipeline::deserialize", e);
  }
  fuzz_fail("Pipeline::deserialize built a pipeline with batch_size 0");
}

void compile(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    sluice::fuzz::note_expected("json::parse", e);
    return;
  }
  PipelineGraph graph = graph_from_json(j);
  CompiledGraph compiled = compile_graph(std::move(graph));

  if (std::getenv("SLUICE_FUZZ_VERBOSE")) {
    std::fprintf(stderr, "[ok] compiled %zu operators\n", compiled.ops.size());
  }
  // Exporters of a valid graph must not throw at all, and the JSON form must load back into
  // the same graph.
  try {
    const nlohmann::json again = graph_to_json(compiled.ops, compiled.outputs);
    CompiledGraph twice = compile_graph(graph_from_json(again));
    if (twice.ops.size() != compiled.ops.size() || twice.outputs != compiled.outputs) {
      fuzz_fail("graph_to_json -> graph_from_json -> compile_graph changed the graph");
    }
    // The execution order may differ (any topological order is valid): match by name.
    for (const OpSpec& op : compiled.ops) {
      const int k = twice.find_op(op.name);
      if (k < 0 || twice.ops[k].type != op.type || twice.ops[k].device != op.device ||
          twice.ops[k].inputs != op.inputs || twice.ops[k].outputs != op.outputs ||
          twice.ops[k].arg_inputs != op.arg_inputs || twice.ops[k].args != op.args) {
        fuzz_fail("graph_to_json round trip changed operator", op.name.c_str());
      }
    }
    g_sink = graph_to_dot(compiled, true, true, true).size();
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("re-loading an exported valid graph", e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  deserialize(text);
  try {
    compile(text);
  } catch (const InvalidArgument& e) {
    sluice::fuzz::note_expected("pipeline JSON", e);
    return 0;
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("the pipeline JSON loader", e);
  }
  return 0;
}
