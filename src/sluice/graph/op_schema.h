#pragma once
// Operator schemas: one per operator, registered once, describing its name, documentation,
// inputs, outputs, typed arguments with defaults, supported devices and which arguments accept
// per-sample tensor inputs. Python's fn.* and ops.* are generated from these at import time.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace sluice {

enum class OpDevice : uint8_t { kCPU, kMixed, kGPU };
std::string_view op_device_name(OpDevice d);  // "cpu", "mixed", "gpu"
OpDevice parse_op_device(std::string_view s);

enum class ArgType : uint8_t {
  kBool,
  kInt,
  kFloat,
  kString,
  kDType,  // a data type name ("FLOAT16"); stored as its canonical name
  kEnum,   // one of ArgSpec::choices; stored as the canonical choice
  kIntList,
  kFloatList,
  kStringList,
};
std::string_view arg_type_name(ArgType t);

// A validated argument value.
using ArgValue = std::variant<bool, int64_t, double, std::string, std::vector<int64_t>,
                              std::vector<double>, std::vector<std::string>>;
using ArgMap = std::map<std::string, ArgValue, std::less<>>;

nlohmann::json arg_value_to_json(const ArgValue& v);

struct ArgSpec {
  std::string name;
  ArgType type = ArgType::kInt;
  std::string doc;
  std::optional<ArgValue> default_value;  // absent: required or optional
  bool per_sample = false;                // may be given a CPU operator's output
  std::vector<std::string> choices;       // kEnum: allowed values
  bool required = false;                  // no default and must be given
};

class OpSchema {
 public:
  explicit OpSchema(std::string name);

  OpSchema& doc(std::string d);
  OpSchema& num_inputs(int min, int max);
  OpSchema& input_doc(std::string name, std::string doc);
  OpSchema& num_outputs(int n);
  // The number of outputs is the value of an integer argument (external_source num_outputs).
  OpSchema& num_outputs_from_arg(std::string arg);
  // One more output for each input beyond the first `n`, and for each of these boolean arguments
  // that is true (random_bbox_crop: the labels, the box indices).
  OpSchema& output_per_input_beyond(int n);
  OpSchema& output_if_arg(std::string arg);
  // One more output unless the string argument `arg` is `value` (random_object_bbox's "box"
  // format gives one output where the others give two).
  OpSchema& output_unless_arg(std::string arg, std::string value);
  OpSchema& output_names(std::vector<std::string> names);
  OpSchema& devices(std::vector<OpDevice> d);
  OpSchema& arg(std::string name, ArgType type, ArgValue default_value, std::string doc,
                bool per_sample = false);
  OpSchema& required_arg(std::string name, ArgType type, std::string doc, bool per_sample = false);
  OpSchema& enum_arg(std::string name, std::vector<std::string> choices, std::string default_value,
                     std::string doc);
  OpSchema& optional_arg(std::string name, ArgType type, std::string doc, bool per_sample = false);
  // Produces batches and sets the batch size (readers, external_source).
  OpSchema& source();
  // Has side effects: never pruned.
  OpSchema& no_prune();
  // Plumbing not offered as fn.* / ops.* (DataNode arithmetic, .gpu()).
  OpSchema& internal();
  // Extra fn names for the same operator (DALI's legacy names, e.g. "image_decoder").
  OpSchema& alias(std::string name);
  // Its inputs may differ in sample count (the merge of conditional branches): it runs on the
  // largest count and sizes its outputs itself. Other operators' inputs must agree.
  OpSchema& uneven_inputs();
  // Inputs from `first` on are parameters read on the host (slice's anchor and shape, reshape's
  // shape): the GPU implementation takes them as CPU data, or also as GPU data when `also_gpu`.
  OpSchema& cpu_inputs_from(int first, bool also_gpu = false);

  const std::string& name() const { return name_; }
  const std::string& doc_string() const { return doc_; }
  int min_inputs() const { return min_inputs_; }
  int max_inputs() const { return max_inputs_; }
  const std::vector<std::pair<std::string, std::string>>& input_docs() const { return input_docs_; }
  // Number of outputs given the (validated) arguments and the number of inputs.
  int num_outputs(const ArgMap& args, int num_inputs) const;
  const std::vector<std::string>& output_name_list() const { return output_names_; }
  const std::vector<OpDevice>& device_list() const { return devices_; }
  bool supports(OpDevice d) const;
  bool is_source() const { return source_; }
  bool is_no_prune() const { return no_prune_; }
  bool is_internal() const { return internal_; }
  bool has_uneven_inputs() const { return uneven_inputs_; }
  // Whether a GPU implementation may take input `k` on the CPU / on the GPU.
  bool gpu_takes_cpu_input(int k) const { return k >= cpu_inputs_from_; }
  bool gpu_takes_gpu_input(int k) const { return k < cpu_inputs_from_ || cpu_inputs_also_gpu_; }
  const std::vector<std::string>& aliases() const { return aliases_; }
  const std::vector<ArgSpec>& args() const { return args_; }
  const ArgSpec* find_arg(std::string_view name) const;

  // Converts a JSON value to the argument's type; throws InvalidArgument naming the operator
  // and the argument.
  ArgValue coerce_arg(std::string_view name, const nlohmann::json& value) const;
  // Validates every argument of `args` (unknown names, types); returns the typed map.
  ArgMap coerce_args(const nlohmann::json& args) const;
  // Documentation and argument table for the Python front end.
  nlohmann::json describe() const;

 private:
  void add(ArgSpec a);

  std::string name_;
  std::string doc_;
  int min_inputs_ = 0;
  int max_inputs_ = 0;
  std::vector<std::pair<std::string, std::string>> input_docs_;
  int num_outputs_ = 1;
  std::string num_outputs_arg_;
  int output_per_input_beyond_ = -1;
  std::vector<std::string> output_if_args_;
  std::vector<std::pair<std::string, std::string>> output_unless_args_;
  std::vector<std::string> output_names_;
  std::vector<OpDevice> devices_ = {OpDevice::kCPU};
  std::vector<ArgSpec> args_;
  bool source_ = false;
  bool no_prune_ = false;
  bool internal_ = false;
  bool uneven_inputs_ = false;
  int cpu_inputs_from_ = 1 << 30;
  bool cpu_inputs_also_gpu_ = false;
  std::vector<std::string> aliases_;
};

}  // namespace sluice
