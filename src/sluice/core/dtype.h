#pragma once
// Element types of tensors. Names follow DALI's DALIDataType (FLOAT is float32).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "sluice/core/error.h"
#include "sluice/core/float16.h"

namespace sluice {

enum class DType : uint8_t {
  kBool,
  kUInt8,
  kInt8,
  kUInt16,
  kInt16,
  kUInt32,
  kInt32,
  kInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kUInt64,  // last, so that the codes of the others stay as they were
};
inline constexpr int kNumDTypes = 13;

size_t dtype_size(DType t);
std::string_view dtype_name(DType t);      // "UINT8", "FLOAT16", "FLOAT", ...
DType parse_dtype(std::string_view name);  // accepts DALI names and numpy-style names
bool dtype_is_float(DType t);
bool dtype_is_integral(DType t);  // includes bool
bool dtype_is_signed(DType t);

template <typename T>
struct DTypeOf;
#define SLUICE_DTYPE_OF(T, code)         \
  template <>                            \
  struct DTypeOf<T> {                    \
    static constexpr DType value = code; \
  }
SLUICE_DTYPE_OF(bool, DType::kBool);
SLUICE_DTYPE_OF(uint8_t, DType::kUInt8);
SLUICE_DTYPE_OF(int8_t, DType::kInt8);
SLUICE_DTYPE_OF(uint16_t, DType::kUInt16);
SLUICE_DTYPE_OF(int16_t, DType::kInt16);
SLUICE_DTYPE_OF(uint32_t, DType::kUInt32);
SLUICE_DTYPE_OF(int32_t, DType::kInt32);
SLUICE_DTYPE_OF(int64_t, DType::kInt64);
SLUICE_DTYPE_OF(uint64_t, DType::kUInt64);
SLUICE_DTYPE_OF(float16, DType::kFloat16);
SLUICE_DTYPE_OF(bfloat16, DType::kBFloat16);
SLUICE_DTYPE_OF(float, DType::kFloat32);
SLUICE_DTYPE_OF(double, DType::kFloat64);
#undef SLUICE_DTYPE_OF

template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls fn(TypeTag<T>{}) with the C++ type of `t`. Keep the type lists of each operator explicit
// and short by using the narrower dispatchers where possible.
template <typename Fn>
decltype(auto) dtype_dispatch(DType t, Fn&& fn) {
  switch (t) {
    case DType::kBool:
      return fn(TypeTag<bool>{});
    case DType::kUInt8:
      return fn(TypeTag<uint8_t>{});
    case DType::kInt8:
      return fn(TypeTag<int8_t>{});
    case DType::kUInt16:
      return fn(TypeTag<uint16_t>{});
    case DType::kInt16:
      return fn(TypeTag<int16_t>{});
    case DType::kUInt32:
      return fn(TypeTag<uint32_t>{});
    case DType::kInt32:
      return fn(TypeTag<int32_t>{});
    case DType::kInt64:
      return fn(TypeTag<int64_t>{});
    case DType::kFloat16:
      return fn(TypeTag<float16>{});
    case DType::kBFloat16:
      return fn(TypeTag<bfloat16>{});
    case DType::kFloat32:
      return fn(TypeTag<float>{});
    case DType::kFloat64:
      return fn(TypeTag<double>{});
    case DType::kUInt64:
      return fn(TypeTag<uint64_t>{});
  }
  throw Error("invalid dtype");
}

}  // namespace sluice
