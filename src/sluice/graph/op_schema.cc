#include "sluice/graph/op_schema.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "sluice/core/dtype.h"
#include "sluice/core/error.h"

namespace sluice {
namespace {

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return r;
}

// Edits (insertions, deletions, substitutions) between a and b, case-insensitive.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      const size_t next = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

// The closest of `args` to `name` within a third of its length (a misspelling), or "".
std::string closest_arg(std::string_view name, const std::vector<ArgSpec>& args) {
  const ArgSpec* best = nullptr;
  size_t best_d = std::max<size_t>(1, name.size() / 3) + 1;
  for (const auto& a : args) {
    const size_t d = edit_distance(name, a.name);
    if (d < best_d) best_d = d, best = &a;
  }
  return best ? best->name : "";
}

}  // namespace

std::string_view op_device_name(OpDevice d) {
  switch (d) {
    case OpDevice::kCPU:
      return "cpu";
    case OpDevice::kMixed:
      return "mixed";
    case OpDevice::kGPU:
      return "gpu";
  }
  return "?";
}

OpDevice parse_op_device(std::string_view s) {
  if (s == "cpu") return OpDevice::kCPU;
  if (s == "mixed") return OpDevice::kMixed;
  if (s == "gpu") return OpDevice::kGPU;
  throw InvalidArgument(make_string("unknown device '", s, "': expected 'cpu', 'mixed' or 'gpu'"));
}

std::string_view arg_type_name(ArgType t) {
  switch (t) {
    case ArgType::kBool:
      return "bool";
    case ArgType::kInt:
      return "int";
    case ArgType::kFloat:
      return "float";
    case ArgType::kString:
      return "str";
    case ArgType::kDType:
      return "DALIDataType";
    case ArgType::kEnum:
      return "enum";
    case ArgType::kIntList:
      return "int or list of int";
    case ArgType::kFloatList:
      return "float or list of float";
    case ArgType::kStringList:
      return "str or list of str";
  }
  return "?";
}

nlohmann::json arg_value_to_json(const ArgValue& v) {
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

OpSchema::OpSchema(std::string name) : name_(std::move(name)) {
  add({"seed", ArgType::kInt, "Random seed of this operator; -1 derives it from the pipeline seed.",
       ArgValue(int64_t{-1})});
  add({"preserve", ArgType::kBool, "Keep the operator even when its outputs are not used.",
       ArgValue(false)});
  add({"bytes_per_sample_hint", ArgType::kIntList,
       "Output buffer size per sample to preallocate, one value or one per output.",
       ArgValue(std::vector<int64_t>{0})});
}

OpSchema& OpSchema::doc(std::string d) {
  doc_ = std::move(d);
  return *this;
}
OpSchema& OpSchema::num_inputs(int min, int max) {
  min_inputs_ = min;
  max_inputs_ = max;
  return *this;
}
OpSchema& OpSchema::input_doc(std::string name, std::string d) {
  input_docs_.emplace_back(std::move(name), std::move(d));
  return *this;
}
OpSchema& OpSchema::num_outputs(int n) {
  num_outputs_ = n;
  return *this;
}
OpSchema& OpSchema::num_outputs_from_arg(std::string arg) {
  num_outputs_arg_ = std::move(arg);
  return *this;
}
OpSchema& OpSchema::output_per_input_beyond(int n) {
  output_per_input_beyond_ = n;
  return *this;
}
OpSchema& OpSchema::output_if_arg(std::string arg) {
  output_if_args_.push_back(std::move(arg));
  return *this;
}
OpSchema& OpSchema::output_unless_arg(std::string arg, std::string value) {
  output_unless_args_.emplace_back(std::move(arg), std::move(value));
  return *this;
}
OpSchema& OpSchema::output_names(std::vector<std::string> names) {
  output_names_ = std::move(names);
  return *this;
}
OpSchema& OpSchema::devices(std::vector<OpDevice> d) {
  devices_ = std::move(d);
  return *this;
}
OpSchema& OpSchema::arg(std::string name, ArgType type, ArgValue default_value, std::string d,
                        bool per_sample) {
  add({std::move(name), type, std::move(d), std::move(default_value), per_sample, {}});
  return *this;
}
OpSchema& OpSchema::required_arg(std::string name, ArgType type, std::string d, bool per_sample) {
  add({std::move(name), type, std::move(d), std::nullopt, per_sample, {}, /*required=*/true});
  return *this;
}
OpSchema& OpSchema::optional_arg(std::string name, ArgType type, std::string d, bool per_sample) {
  // No default value: absent unless given; operators check has_arg().
  add({std::move(name), type, std::move(d), std::nullopt, per_sample, {}, /*required=*/false});
  return *this;
}
OpSchema& OpSchema::enum_arg(std::string name, std::vector<std::string> choices,
                             std::string default_value, std::string d) {
  add({std::move(name), ArgType::kEnum, std::move(d), ArgValue(std::move(default_value)), false,
       std::move(choices)});
  return *this;
}
OpSchema& OpSchema::source() {
  source_ = true;
  return *this;
}
OpSchema& OpSchema::no_prune() {
  no_prune_ = true;
  return *this;
}
OpSchema& OpSchema::internal() {
  internal_ = true;
  return *this;
}
OpSchema& OpSchema::cpu_inputs_from(int first, bool also_gpu) {
  cpu_inputs_from_ = first;
  cpu_inputs_also_gpu_ = also_gpu;
  return *this;
}

OpSchema& OpSchema::uneven_inputs() {
  uneven_inputs_ = true;
  return *this;
}
OpSchema& OpSchema::alias(std::string name) {
  aliases_.push_back(std::move(name));
  return *this;
}

void OpSchema::add(ArgSpec a) {
  auto it =
      std::find_if(args_.begin(), args_.end(), [&](const ArgSpec& s) { return s.name == a.name; });
  if (it != args_.end()) {
    *it = std::move(a);  // an operator may refine a common argument's default or doc
  } else {
    args_.push_back(std::move(a));
  }
}

int OpSchema::num_outputs(const ArgMap& args, int num_inputs) const {
  int n = num_outputs_;
  if (!num_outputs_arg_.empty()) {
    auto it = args.find(num_outputs_arg_);
    if (it == args.end()) {
      const ArgSpec* a = find_arg(num_outputs_arg_);
      n = a && a->default_value ? static_cast<int>(std::get<int64_t>(*a->default_value)) : 1;
    } else if (const auto* list = std::get_if<std::vector<int64_t>>(&it->second)) {
      // A list argument gives one output per element (element_extract's element_map).
      SLUICE_CHECK(!list->empty(), InvalidArgument, "operator '", name_, "': argument '",
                   num_outputs_arg_, "' must not be empty");
      n = static_cast<int>(list->size());
    } else if (const auto* names = std::get_if<std::vector<std::string>>(&it->second)) {
      // One output per name (readers.tfrecord's feature_names, readers.webdataset's ext).
      SLUICE_CHECK(!names->empty(), InvalidArgument, "operator '", name_, "': argument '",
                   num_outputs_arg_, "' must not be empty");
      n = static_cast<int>(names->size());
    } else {
      n = static_cast<int>(std::get<int64_t>(it->second));
    }
  }
  if (output_per_input_beyond_ >= 0) n += std::max(0, num_inputs - output_per_input_beyond_);
  for (const auto& name : output_if_args_) {
    auto it = args.find(name);
    const ArgSpec* a = find_arg(name);
    if (it != args.end() ? std::get<bool>(it->second)
                         : a && a->default_value && std::get<bool>(*a->default_value)) {
      ++n;
    }
  }
  for (const auto& [name, value] : output_unless_args_) {
    auto it = args.find(name);
    const ArgSpec* a = find_arg(name);
    const ArgValue* v = it != args.end()        ? &it->second
                        : a && a->default_value ? &*a->default_value
                                                : nullptr;
    // An integer argument compares in decimal (readers.caffe2's label_type).
    const auto* i = v ? std::get_if<int64_t>(v) : nullptr;
    if (!v || (i ? std::to_string(*i) : std::get<std::string>(*v)) != value) ++n;
  }
  return n;
}

bool OpSchema::supports(OpDevice d) const {
  return std::find(devices_.begin(), devices_.end(), d) != devices_.end();
}

const ArgSpec* OpSchema::find_arg(std::string_view name) const {
  for (const auto& a : args_) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

ArgValue OpSchema::coerce_arg(std::string_view name, const nlohmann::json& v) const {
  const ArgSpec* spec = find_arg(name);
  if (!spec) {
    std::string known;
    for (const auto& a : args_) known += (known.empty() ? "" : ", ") + a.name;
    const std::string close = closest_arg(name, args_);
    throw InvalidArgument(
        make_string("operator '", name_, "' has no argument '", name, "'",
                    close.empty() ? "; its" : ": did you mean '" + close + "'? Its",
                    " arguments are: ", known));
  }
  auto fail = [&](const std::string& why = {}) -> InvalidArgument {
    return InvalidArgument(make_string("operator '", name_, "': argument '", name, "' expects ",
                                       arg_type_name(spec->type), ", got ", v.dump(),
                                       why.empty() ? "" : " (" + why + ")"));
  };
  auto as_int = [&](const nlohmann::json& x) -> int64_t {
    if (x.is_number_unsigned()) {  // also is_number_integer(): test it first
      if (x.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) throw fail("over 2^63 - 1");
      return static_cast<int64_t>(x.get<uint64_t>());
    }
    if (x.is_number_integer()) return x.get<int64_t>();
    if (x.is_number_float()) {
      double d = x.get<double>();
      if (std::floor(d) == d && std::abs(d) < 9e18) return static_cast<int64_t>(d);
    }
    if (x.is_boolean()) return x.get<bool>() ? 1 : 0;
    throw fail();
  };
  auto as_float = [&](const nlohmann::json& x) -> double {
    if (x.is_number()) return x.get<double>();
    throw fail();
  };
  switch (spec->type) {
    case ArgType::kBool:
      if (v.is_boolean()) return v.get<bool>();
      if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1))
        return v.get<int64_t>() == 1;
      throw fail();
    case ArgType::kInt:
      return as_int(v);
    case ArgType::kFloat:
      return as_float(v);
    case ArgType::kString:
      if (v.is_string()) return v.get<std::string>();
      throw fail();
    case ArgType::kDType:
      if (v.is_string()) {
        try {
          return std::string(dtype_name(parse_dtype(v.get<std::string>())));
        } catch (const InvalidArgument& e) {
          throw fail(e.what());
        }
      }
      throw fail();
    case ArgType::kEnum: {
      if (!v.is_string()) throw fail();
      std::string s = v.get<std::string>();
      for (const auto& c : spec->choices) {
        if (lower(c) == lower(s)) return c;
      }
      std::string options;
      for (const auto& c : spec->choices) options += (options.empty() ? "" : ", ") + c;
      throw fail("one of: " + options);
    }
    case ArgType::kIntList: {
      std::vector<int64_t> out;
      if (v.is_array()) {
        for (const auto& x : v) out.push_back(as_int(x));
      } else {
        out.push_back(as_int(v));
      }
      return out;
    }
    case ArgType::kFloatList: {
      std::vector<double> out;
      if (v.is_array()) {
        for (const auto& x : v) out.push_back(as_float(x));
      } else {
        out.push_back(as_float(v));
      }
      return out;
    }
    case ArgType::kStringList: {
      std::vector<std::string> out;
      if (v.is_array()) {
        for (const auto& x : v) {
          if (!x.is_string()) throw fail();
          out.push_back(x.get<std::string>());
        }
      } else if (v.is_string()) {
        out.push_back(v.get<std::string>());
      } else {
        throw fail();
      }
      return out;
    }
  }
  throw fail();
}

ArgMap OpSchema::coerce_args(const nlohmann::json& args) const {
  ArgMap out;
  if (args.is_null()) return out;
  SLUICE_CHECK(args.is_object(), InvalidArgument, "operator '", name_,
               "': arguments must be a mapping");
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (it.value().is_null()) continue;  // None means "use the default"
    out.emplace(it.key(), coerce_arg(it.key(), it.value()));
  }
  return out;
}

nlohmann::json OpSchema::describe() const {
  nlohmann::json j;
  j["name"] = name_;
  j["doc"] = doc_;
  j["min_inputs"] = min_inputs_;
  j["max_inputs"] = max_inputs_;
  j["inputs"] = nlohmann::json::array();
  for (const auto& [n, d] : input_docs_) j["inputs"].push_back({{"name", n}, {"doc", d}});
  j["num_outputs"] = num_outputs_;
  j["num_outputs_arg"] = num_outputs_arg_;
  j["output_per_input_beyond"] = output_per_input_beyond_;
  j["output_if_args"] = output_if_args_;
  j["output_unless_args"] = nlohmann::json::array();
  for (const auto& [name, value] : output_unless_args_) {
    j["output_unless_args"].push_back({name, value});
  }
  j["output_names"] = output_names_;
  j["devices"] = nlohmann::json::array();
  for (auto d : devices_) j["devices"].push_back(op_device_name(d));
  j["source"] = source_;
  j["internal"] = internal_;
  j["aliases"] = aliases_;
  j["args"] = nlohmann::json::array();
  for (const auto& a : args_) {
    nlohmann::json ja;
    ja["name"] = a.name;
    ja["type"] = arg_type_name(a.type);
    ja["doc"] = a.doc;
    ja["per_sample"] = a.per_sample;
    ja["required"] = a.required;
    ja["default"] = a.default_value ? arg_value_to_json(*a.default_value) : nlohmann::json();
    if (a.type == ArgType::kEnum) ja["choices"] = a.choices;
    j["args"].push_back(std::move(ja));
  }
  return j;
}

}  // namespace sluice
