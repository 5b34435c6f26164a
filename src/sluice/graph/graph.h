#pragma once
// A pipeline's operator graph: built from Python DataNodes or C++, validated, with devices
// inferred, unused operators pruned and operators ordered for execution (cpu, then mixed, then
// gpu stage; topological within a stage). Serialised as JSON data, never as code.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sluice/graph/op_spec.h"

namespace sluice {

// Where a tensor lives: CPU tensors come from the cpu stage, GPU tensors from mixed/gpu ops.
enum class TensorDevice : uint8_t { kCPU, kGPU };

struct TensorRef {
  int op = -1;     // index of the producing operator in CompiledGraph::ops
  int output = 0;  // output index of that operator
  TensorDevice device = TensorDevice::kCPU;
};

struct PipelineGraph {
  std::vector<OpSpec> ops;
  std::vector<std::string> outputs;  // tensor names

  // Adds an operator: resolves the schema, validates arguments and names its outputs
  // "<name>[i]" when not given. Returns the output tensor names.
  std::vector<std::string> add(std::string type, std::string name, std::string device,
                               std::vector<std::string> inputs,
                               std::map<std::string, std::string> arg_inputs,
                               const nlohmann::json& args);
};

struct CompiledGraph {
  std::vector<OpSpec> ops;  // execution order
  std::vector<std::string> outputs;
  std::map<std::string, TensorRef> tensors;
  std::vector<TensorDevice> output_devices;

  // Index of the first mixed / gpu operator in `ops` (== ops.size() when none).
  int first_gpu_stage_op() const;
  const TensorRef& tensor(const std::string& name) const;
  int find_op(std::string_view name) const;  // -1 when absent
};

// Validates and orders `g`; throws InvalidArgument with the operator named.
CompiledGraph compile_graph(PipelineGraph g);

// The device an operator gets when none is given: "gpu" when any input is on the GPU.
OpDevice infer_device(const OpSchema& schema, const std::vector<TensorDevice>& inputs);

// {"ops": [{"type", "name", "device", "inputs", "arg_inputs", "outputs", "args"}], "outputs"}.
nlohmann::json graph_to_json(const std::vector<OpSpec>& ops,
                             const std::vector<std::string>& outputs);
PipelineGraph graph_from_json(const nlohmann::json& j);

std::string graph_to_dot(const CompiledGraph& g, bool show_tensors, bool show_ids, bool use_colors);

}  // namespace sluice
