#pragma once
// Shared by the CPU (constant.cc) and GPU (constant_gpu.cc) "constant" operators: the one sample
// every iteration repeats, built from the arguments once.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "sluice/core/dtype.h"
#include "sluice/core/shape.h"
#include "sluice/graph/op_spec.h"

namespace sluice {

struct ConstantSample {
  Shape shape;
  DType dtype = DType::kInt32;
  Layout layout;
  std::vector<uint8_t> bytes;  // volume(shape) values of dtype
};

// DALI's rules: `fdata` (float32 values) or `idata` (int64 values), broadcast from one value or
// one per element of `shape` (default: a 1-D list of the values); converted to `dtype` (default
// FLOAT for fdata, INT32 for idata) rounding half away from zero and saturating into integers.
ConstantSample constant_sample(const OpSpec& spec);

// DALI's ConvertSat of a float: rounds half away from zero, saturates, NaN gives 0; to bool,
// the rounded value is tested (0.4 is false).
template <typename T>
T convert_sat(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return std::round(v) != 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T(static_cast<float>(v));
  } else {
    if (v != v) return 0;
    const double r = std::round(v);
    if (r <= static_cast<double>(std::numeric_limits<T>::min())) {
      return std::numeric_limits<T>::min();
    }
    if (r >= static_cast<double>(std::numeric_limits<T>::max())) {
      return std::numeric_limits<T>::max();
    }
    return static_cast<T>(r);
  }
}

template <typename T>
T convert_sat(int64_t v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (v < static_cast<int64_t>(std::numeric_limits<T>::min())) {
      return std::numeric_limits<T>::min();
    }
    if (std::is_signed_v<T> || sizeof(T) < 8) {
      if (v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
        return std::numeric_limits<T>::max();
      }
    }
    return static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace sluice
