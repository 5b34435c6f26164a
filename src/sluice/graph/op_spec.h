#pragma once
// One operator instance in a graph: its schema, device, connections and explicit arguments.
// Argument getters fall back to the schema's defaults.

#include <map>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/graph/op_schema.h"

namespace sluice {

struct OpSpec {
  std::string type;  // schema name, e.g. "decoders.image"
  std::string name;  // unique instance name (DALI's name=, e.g. "Reader")
  OpDevice device = OpDevice::kCPU;
  bool device_given = false;                      // false: inferred from the inputs
  std::vector<std::string> inputs;                // tensor names
  std::map<std::string, std::string> arg_inputs;  // argument name -> tensor name
  std::vector<std::string> outputs;               // tensor names
  ArgMap args;                                    // explicitly given, validated
  const OpSchema* schema = nullptr;

  bool has_arg(std::string_view n) const { return args.count(n) > 0; }

  // Typed argument: the explicit value, else the schema default. T is one of bool, int,
  // int64_t, float, double, std::string and std::vector of int, int64_t, float, double,
  // std::string.
  template <typename T>
  T arg(std::string_view n) const;

  // The value (explicit or default) as stored; throws when a required argument is missing.
  const ArgValue& raw_arg(std::string_view n) const;
  // "operator 'decoders.image' (\"Decoder\")" for messages.
  std::string describe() const;
};

namespace detail {

template <typename T>
struct ArgConvert;

template <>
struct ArgConvert<bool> {
  static bool get(const ArgValue& v) { return std::get<bool>(v); }
};
template <>
struct ArgConvert<int64_t> {
  static int64_t get(const ArgValue& v) {
    if (auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
    return std::get<int64_t>(v);
  }
};
template <>
struct ArgConvert<int> {
  static int get(const ArgValue& v) { return static_cast<int>(ArgConvert<int64_t>::get(v)); }
};
template <>
struct ArgConvert<double> {
  static double get(const ArgValue& v) {
    if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    return std::get<double>(v);
  }
};
template <>
struct ArgConvert<float> {
  static float get(const ArgValue& v) { return static_cast<float>(ArgConvert<double>::get(v)); }
};
template <>
struct ArgConvert<std::string> {
  static std::string get(const ArgValue& v) { return std::get<std::string>(v); }
};
template <typename E>
struct ArgConvert<std::vector<E>> {
  static std::vector<E> get(const ArgValue& v) {
    std::vector<E> out;
    if constexpr (std::is_same_v<E, std::string>) {
      return std::get<std::vector<std::string>>(v);
    } else if constexpr (std::is_integral_v<E>) {
      if (auto* s = std::get_if<int64_t>(&v)) return {static_cast<E>(*s)};
      for (auto x : std::get<std::vector<int64_t>>(v)) out.push_back(static_cast<E>(x));
    } else {
      if (auto* s = std::get_if<double>(&v)) return {static_cast<E>(*s)};
      if (auto* iv = std::get_if<std::vector<int64_t>>(&v)) {
        for (auto x : *iv) out.push_back(static_cast<E>(x));
      } else {
        for (auto x : std::get<std::vector<double>>(v)) out.push_back(static_cast<E>(x));
      }
    }
    return out;
  }
};

}  // namespace detail

template <typename T>
T OpSpec::arg(std::string_view n) const {
  const ArgValue& v = raw_arg(n);
  try {
    return detail::ArgConvert<T>::get(v);
  } catch (const std::bad_variant_access&) {
    throw InvalidArgument(make_string(describe(), ": argument '", n, "' has an unexpected type"));
  }
}

}  // namespace sluice
