#include "sluice/core/dtype.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace sluice {
namespace {

struct DTypeInfo {
  std::string_view name;
  size_t size;
  std::string_view alias;  // numpy spelling
};

constexpr std::array<DTypeInfo, kNumDTypes> kInfo = {{
    {"BOOL", 1, "bool"},
    {"UINT8", 1, "uint8"},
    {"INT8", 1, "int8"},
    {"UINT16", 2, "uint16"},
    {"INT16", 2, "int16"},
    {"UINT32", 4, "uint32"},
    {"INT32", 4, "int32"},
    {"INT64", 8, "int64"},
    {"FLOAT16", 2, "float16"},
    {"BFLOAT16", 2, "bfloat16"},
    {"FLOAT", 4, "float32"},
    {"FLOAT64", 8, "float64"},
    {"UINT64", 8, "uint64"},
}};

const DTypeInfo& info(DType t) {
  auto i = static_cast<size_t>(t);
  SLUICE_CHECK(i < kInfo.size(), InvalidArgument, "invalid dtype code ", i);
  return kInfo[i];
}

}  // namespace

size_t dtype_size(DType t) {
  return info(t).size;
}
std::string_view dtype_name(DType t) {
  return info(t).name;
}

DType parse_dtype(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper == "FLOAT32") upper = "FLOAT";
  if (upper == "DOUBLE") upper = "FLOAT64";
  if (upper == "HALF") upper = "FLOAT16";
  for (size_t i = 0; i < kInfo.size(); ++i) {
    if (kInfo[i].name == upper || kInfo[i].alias == name) return static_cast<DType>(i);
  }
  throw InvalidArgument(make_string("unknown data type '", name, "'"));
}

bool dtype_is_float(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 ||
         t == DType::kFloat64;
}
bool dtype_is_integral(DType t) {
  return !dtype_is_float(t);
}
bool dtype_is_signed(DType t) {
  return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64 ||
         dtype_is_float(t);
}

}  // namespace sluice
