#include "sluice/graph/graph.h"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include "sluice/core/error.h"
#include "sluice/graph/schema_registry.h"

namespace sluice {
namespace {

TensorDevice output_device(OpDevice d) {
  return d == OpDevice::kCPU ? TensorDevice::kCPU : TensorDevice::kGPU;
}

int stage_rank(OpDevice d) {
  return static_cast<int>(d);
}  // cpu < mixed < gpu

}  // namespace

std::vector<std::string> PipelineGraph::add(std::string type, std::string name, std::string device,
                                            std::vector<std::string> inputs,
                                            std::map<std::string, std::string> arg_inputs,
                                            const nlohmann::json& args) {
  OpSpec op;
  const OpSchema& schema = SchemaRegistry::instance().get(type);
  op.schema = &schema;
  op.type = schema.name();
  op.name = std::move(name);
  op.device_given = !device.empty();
  if (op.device_given) op.device = parse_op_device(device);
  op.inputs = std::move(inputs);
  op.arg_inputs = std::move(arg_inputs);
  op.args = schema.coerce_args(args);
  int n = schema.num_outputs(op.args, static_cast<int>(op.inputs.size()));
  for (int i = 0; i < n; ++i) op.outputs.push_back(make_string(op.name, "[", i, "]"));
  ops.push_back(std::move(op));
  return ops.back().outputs;
}

int CompiledGraph::first_gpu_stage_op() const {
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].device != OpDevice::kCPU) return static_cast<int>(i);
  }
  return static_cast<int>(ops.size());
}

const TensorRef& CompiledGraph::tensor(const std::string& name) const {
  auto it = tensors.find(name);
  SLUICE_CHECK(it != tensors.end(), InvalidArgument, "unknown tensor '", name, "'");
  return it->second;
}

int CompiledGraph::find_op(std::string_view name) const {
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

OpDevice infer_device(const OpSchema& schema, const std::vector<TensorDevice>& inputs) {
  bool gpu = std::any_of(inputs.begin(), inputs.end(),
                         [](TensorDevice d) { return d == TensorDevice::kGPU; });
  if (gpu) return OpDevice::kGPU;
  if (schema.supports(OpDevice::kCPU)) return OpDevice::kCPU;
  // Operators without a CPU implementation (none today) would need an explicit device.
  SLUICE_CHECK(!schema.device_list().empty(), InvalidArgument, "operator '", schema.name(),
               "' supports no device");
  return schema.device_list().front();
}

namespace {

// The compiler's passes, in the order compile_graph() runs them. Operators are named by their
// index in PipelineGraph::ops until the last pass puts them in execution order.

// producers[tensor] = {operator, output index}.
using Producers = std::map<std::string, std::pair<int, int>>;
// deps[i]: the operators whose outputs operator i takes (argument inputs first, then inputs).
using Dependencies = std::vector<std::vector<int>>;

void require_outputs(const PipelineGraph& g) {
  SLUICE_CHECK(!g.outputs.empty(), InvalidArgument,
               "the pipeline has no outputs: return them from the pipeline function or call "
               "set_outputs()");
}

// Resolves schemas not yet resolved (graphs built in C++ by hand), checks that operator and
// tensor names are unique, and maps every tensor to the operator that produces it.
Producers resolve_names(PipelineGraph& g) {
  SchemaRegistry& reg = SchemaRegistry::instance();
  Producers producers;
  std::set<std::string> op_names;
  for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) {
    OpSpec& op = g.ops[i];
    if (!op.schema) {
      op.schema = &reg.get(op.type);
      op.type = op.schema->name();
    }
    SLUICE_CHECK(op_names.insert(op.name).second, InvalidArgument, "two operators are named '",
                 op.name, "': operator names must be unique");
    for (int o = 0; o < static_cast<int>(op.outputs.size()); ++o) {
      SLUICE_CHECK(producers.emplace(op.outputs[o], std::make_pair(i, o)).second, InvalidArgument,
                   "tensor '", op.outputs[o], "' is produced twice");
    }
  }
  return producers;
}

int producer_of(const Producers& producers, const OpSpec& op, const std::string& tensor) {
  auto it = producers.find(tensor);
  SLUICE_CHECK(it != producers.end(), InvalidArgument, op.describe(), " takes '", tensor,
               "', which no operator of this pipeline produces");
  return it->second.first;
}

// Checks each operator against its schema (inputs, outputs, argument inputs, required
// arguments) and finds the operators it depends on.
Dependencies check_against_schemas(const PipelineGraph& g, const Producers& producers) {
  Dependencies deps(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const OpSpec& op = g.ops[i];
    const OpSchema& s = *op.schema;
    int ni = static_cast<int>(op.inputs.size());
    SLUICE_CHECK(
        ni >= s.min_inputs() && ni <= s.max_inputs(), InvalidArgument, op.describe(), " takes ",
        s.min_inputs() == s.max_inputs() ? make_string(s.min_inputs())
                                         : make_string(s.min_inputs(), " to ", s.max_inputs()),
        " input(s), got ", ni);
    const int no = s.num_outputs(op.args, ni);
    SLUICE_CHECK(static_cast<int>(op.outputs.size()) == no, InvalidArgument, op.describe(),
                 " must have ", no, " output(s)");
    for (const auto& [arg, tensor] : op.arg_inputs) {
      const ArgSpec* a = s.find_arg(arg);
      SLUICE_CHECK(a, InvalidArgument, op.describe(), " has no argument '", arg, "'");
      SLUICE_CHECK(a->per_sample, InvalidArgument, op.describe(), ": argument '", arg,
                   "' must be a constant; it does not accept per-sample tensor inputs");
      SLUICE_CHECK(!op.has_arg(arg), InvalidArgument, op.describe(), ": argument '", arg,
                   "' is given both as a constant and as a tensor input");
      deps[i].push_back(producer_of(producers, op, tensor));
    }
    for (const auto& a : s.args()) {
      SLUICE_CHECK(!a.required || op.has_arg(a.name) || op.arg_inputs.count(a.name),
                   InvalidArgument, op.describe(), ": required argument '", a.name, "' is missing");
    }
    for (const auto& t : op.inputs) deps[i].push_back(producer_of(producers, op, t));
  }
  return deps;
}

// A topological order (Kahn's); a cycle can only come from a hand-written JSON graph.
std::vector<int> topological_order(const Dependencies& deps) {
  const int n = static_cast<int>(deps.size());
  std::vector<int> order, indeg(n, 0);
  std::vector<std::vector<int>> users(n);
  for (int i = 0; i < n; ++i) {
    for (int d : deps[i]) {
      users[d].push_back(i);
      ++indeg[i];
    }
  }
  std::vector<int> ready;
  for (int i = n - 1; i >= 0; --i) {
    if (indeg[i] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    int i = ready.back();
    ready.pop_back();
    order.push_back(i);
    for (int u : users[i]) {
      if (--indeg[u] == 0) ready.push_back(u);
    }
  }
  SLUICE_CHECK(static_cast<int>(order.size()) == n, InvalidArgument,
               "the pipeline graph has a cycle");
  return order;
}

// Throws unless `op` may take its inputs, whose devices are `in`: data flows cpu -> mixed ->
// gpu only, and GPU operators take GPU inputs.
void check_data_flow(const PipelineGraph& g, const Producers& producers, const OpSpec& op,
                     const std::vector<TensorDevice>& in) {
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    const OpSpec& src = g.ops[producers.at(op.inputs[k]).first];
    bool gpu_in = in[k] == TensorDevice::kGPU;
    if (op.device != OpDevice::kGPU && gpu_in) {
      throw InvalidArgument(make_string(
          op.describe(), " cannot take input ", k, " ('", op.inputs[k], "' from ", src.describe(),
          "): it is GPU data and data cannot flow back from the GPU stage to "
          "the '",
          op_device_name(op.device),
          "' stage. Place this operator on the GPU "
          "(device='gpu') or move the producer to the CPU."));
    }
    if (op.device == OpDevice::kGPU && gpu_in && !op.schema->gpu_takes_gpu_input(k)) {
      throw InvalidArgument(make_string(op.describe(), " takes input ", k, " ('", op.inputs[k],
                                        "' from ", src.describe(), ") on the CPU only"));
    }
    if (op.device == OpDevice::kGPU && !gpu_in && !op.schema->gpu_takes_cpu_input(k)) {
      throw InvalidArgument(make_string(
          op.describe(), " takes input ", k, " ('", op.inputs[k], "' from ", src.describe(),
          ") on the CPU; GPU operators take GPU inputs: call .gpu() on it first"));
    }
  }
}

// Gives each operator without a device the one its inputs imply, in topological order, and
// checks that every operator supports its device and receives data it can take.
void assign_devices(PipelineGraph& g, const Producers& producers, const std::vector<int>& order) {
  auto tensor_device = [&](const std::string& t) {
    return output_device(g.ops[producers.at(t).first].device);
  };
  for (int i : order) {
    OpSpec& op = g.ops[i];
    std::vector<TensorDevice> in;
    for (const auto& t : op.inputs) in.push_back(tensor_device(t));
    if (!op.device_given) op.device = infer_device(*op.schema, in);
    if (!op.schema->supports(op.device)) {
      std::string supported;
      for (auto d : op.schema->device_list())
        supported += make_string(supported.empty() ? "" : ", ", "'", op_device_name(d), "'");
      throw InvalidArgument(make_string(op.describe(), ": device '", op_device_name(op.device),
                                        "' is not supported; supported: ", supported));
    }
    check_data_flow(g, producers, op, in);
    for (const auto& [arg, t] : op.arg_inputs) {
      SLUICE_CHECK(tensor_device(t) == TensorDevice::kCPU, InvalidArgument, op.describe(),
                   ": argument input '", arg, "' ('", t,
                   "') is GPU data; argument inputs must be outputs of CPU operators");
    }
  }
}

// The operators to keep: those an output needs, and preserved or side-effect operators with
// what they need; the rest is pruned.
std::vector<char> operators_to_keep(const PipelineGraph& g, const Producers& producers,
                                    const Dependencies& deps) {
  std::vector<char> keep(g.ops.size(), 0);
  std::function<void(int)> mark = [&](int i) {
    if (keep[i]) return;
    keep[i] = 1;
    for (int d : deps[i]) mark(d);
  };
  for (const auto& t : g.outputs) {
    auto it = producers.find(t);
    SLUICE_CHECK(it != producers.end(), InvalidArgument, "pipeline output '", t,
                 "' is not produced by any operator");
    mark(it->second.first);
  }
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (g.ops[i].arg<bool>("preserve") || g.ops[i].schema->is_no_prune()) mark(i);
  }
  return keep;
}

// The kept operators by stage, topological within a stage (stable: dependencies never point to
// a later stage, so sorting a topological order by stage keeps it topological).
std::vector<int> execution_order(const PipelineGraph& g, const std::vector<int>& order,
                                 const std::vector<char>& keep) {
  std::vector<int> exec;
  for (int i : order) {
    if (keep[i]) exec.push_back(i);
  }
  std::stable_sort(exec.begin(), exec.end(), [&](int a, int b) {
    return stage_rank(g.ops[a].device) < stage_rank(g.ops[b].device);
  });
  return exec;
}

// The compiled graph: operators `exec` of `g` in that order, tensors indexed by name.
CompiledGraph assemble(PipelineGraph g, const std::vector<int>& exec) {
  CompiledGraph out;
  for (int i : exec) out.ops.push_back(std::move(g.ops[i]));
  for (int i = 0; i < static_cast<int>(out.ops.size()); ++i) {
    for (int o = 0; o < static_cast<int>(out.ops[i].outputs.size()); ++o) {
      out.tensors[out.ops[i].outputs[o]] = {i, o, output_device(out.ops[i].device)};
    }
  }
  out.outputs = std::move(g.outputs);
  for (const auto& t : out.outputs) out.output_devices.push_back(out.tensors.at(t).device);
  return out;
}

}  // namespace

CompiledGraph compile_graph(PipelineGraph g) {
  require_outputs(g);
  const Producers producers = resolve_names(g);
  const Dependencies deps = check_against_schemas(g, producers);
  const std::vector<int> order = topological_order(deps);
  assign_devices(g, producers, order);
  const std::vector<char> keep = operators_to_keep(g, producers, deps);
  const std::vector<int> exec = execution_order(g, order, keep);
  return assemble(std::move(g), exec);
}

nlohmann::json graph_to_json(const std::vector<OpSpec>& ops,
                             const std::vector<std::string>& outputs) {
  nlohmann::json j;
  j["ops"] = nlohmann::json::array();
  for (const auto& op : ops) {
    nlohmann::json jo;
    jo["type"] = op.type;
    jo["name"] = op.name;
    jo["device"] = op.device_given ? nlohmann::json(op_device_name(op.device)) : nlohmann::json();
    jo["inputs"] = op.inputs;
    jo["arg_inputs"] = op.arg_inputs;
    jo["outputs"] = op.outputs;
    jo["args"] = nlohmann::json::object();
    for (const auto& [k, v] : op.args) jo["args"][k] = arg_value_to_json(v);
    j["ops"].push_back(std::move(jo));
  }
  j["outputs"] = outputs;
  return j;
}

PipelineGraph graph_from_json(const nlohmann::json& j) {
  SLUICE_CHECK(j.is_object() && j.contains("ops") && j["ops"].is_array() && j.contains("outputs") &&
                   j["outputs"].is_array(),
               InvalidArgument, "pipeline JSON needs 'ops' and 'outputs' lists");
  PipelineGraph g;
  for (const auto& jo : j["ops"]) {
    SLUICE_CHECK(jo.is_object() && jo.contains("type") && jo["type"].is_string() &&
                     jo.contains("name") && jo["name"].is_string(),
                 InvalidArgument, "each operator in pipeline JSON needs string 'type' and 'name'");
    auto strings = [&](const char* key) {
      std::vector<std::string> v;
      if (!jo.contains(key) || jo[key].is_null()) return v;
      SLUICE_CHECK(jo[key].is_array(), InvalidArgument, "operator '", jo["name"].get<std::string>(),
                   "': '", key, "' must be a list of strings");
      for (const auto& x : jo[key]) {
        SLUICE_CHECK(x.is_string(), InvalidArgument, "operator '", jo["name"].get<std::string>(),
                     "': '", key, "' must be a list of strings");
        v.push_back(x.get<std::string>());
      }
      return v;
    };
    std::map<std::string, std::string> arg_inputs;
    if (jo.contains("arg_inputs") && !jo["arg_inputs"].is_null()) {
      SLUICE_CHECK(jo["arg_inputs"].is_object(), InvalidArgument, "'arg_inputs' must be a mapping");
      for (auto it = jo["arg_inputs"].begin(); it != jo["arg_inputs"].end(); ++it) {
        SLUICE_CHECK(it.value().is_string(), InvalidArgument,
                     "'arg_inputs' values are tensor names");
        arg_inputs[it.key()] = it.value().get<std::string>();
      }
    }
    std::string device;
    if (jo.contains("device") && !jo["device"].is_null()) {
      SLUICE_CHECK(jo["device"].is_string(), InvalidArgument, "'device' must be a string");
      device = jo["device"].get<std::string>();
    }
    auto outs = g.add(jo["type"].get<std::string>(), jo["name"].get<std::string>(), device,
                      strings("inputs"), std::move(arg_inputs),
                      jo.contains("args") ? jo["args"] : nlohmann::json());
    auto given = strings("outputs");
    if (!given.empty()) {
      SLUICE_CHECK(given.size() == outs.size(), InvalidArgument, "operator '",
                   jo["name"].get<std::string>(), "' lists ", given.size(), " outputs, expected ",
                   outs.size());
      g.ops.back().outputs = given;
    }
  }
  for (const auto& t : j["outputs"]) {
    SLUICE_CHECK(t.is_string(), InvalidArgument, "'outputs' must be a list of tensor names");
    g.outputs.push_back(t.get<std::string>());
  }
  return g;
}

std::string graph_to_dot(const CompiledGraph& g, bool show_tensors, bool show_ids,
                         bool use_colors) {
  static const char* kColors[] = {"#8fbbda", "#dab08f", "#8fda9a"};  // cpu, mixed, gpu
  std::ostringstream os;
  os << "digraph pipeline {\n  rankdir=TB;\n  node [shape=box, style=filled, fillcolor=white];\n";
  auto quote = [](const std::string& s) {
    std::string r = "\"";
    for (char c : s) r += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return r + "\"";
  };
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const OpSpec& op = g.ops[i];
    std::string label =
        op.type + "\\n" + op.name + " (" + std::string(op_device_name(op.device)) + ")";
    if (show_ids) label = make_string(i, ": ", label);
    os << "  " << quote("op:" + op.name) << " [label=" << quote(label);
    if (use_colors) os << ", fillcolor=" << quote(kColors[static_cast<int>(op.device)]);
    os << "];\n";
  }
  auto edge = [&](const std::string& tensor, const OpSpec& user, const std::string& label) {
    const TensorRef& ref = g.tensors.at(tensor);
    const std::string src = "op:" + g.ops[ref.op].name;
    if (show_tensors) {
      os << "  " << quote("t:" + tensor) << " [shape=ellipse, label=" << quote(tensor) << "];\n";
      os << "  " << quote(src) << " -> " << quote("t:" + tensor) << ";\n";
      os << "  " << quote("t:" + tensor) << " -> " << quote("op:" + user.name);
    } else {
      os << "  " << quote(src) << " -> " << quote("op:" + user.name);
    }
    if (!label.empty()) os << " [style=dashed, label=" << quote(label) << "]";
    os << ";\n";
  };
  for (const auto& op : g.ops) {
    for (const auto& t : op.inputs) edge(t, op, "");
    for (const auto& [arg, t] : op.arg_inputs) edge(t, op, arg);
  }
  for (const auto& t : g.outputs) {
    os << "  " << quote("op:" + g.ops[g.tensors.at(t).op].name) << " -> " << quote("out:" + t)
       << ";\n  " << quote("out:" + t) << " [shape=plaintext, label=" << quote(t) << "];\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace sluice
