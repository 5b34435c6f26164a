#pragma once
// Element loads and stores with run-time types, shared by the CPU references and CUDA kernels
// of cast and arithmetic so both produce identical bits.
//
// Conversions follow DALI's ConvertSat: floats to integers round to nearest (ties away from zero,
// as DALI's CPU operators) and saturate, NaN becomes 0; integers to narrower integers saturate; to
// bool, the rounded value is != 0.
// Integer arithmetic results wrap instead (store_wrap), as in C and numpy.

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "sluice/core/dtype.h"
#include "sluice/core/float16.h"

namespace sluice::kernels {

// Returns fn(x) for element i of `p` read as its own C++ type (float16 and bfloat16 widened to
// float), or R{} for an invalid type: the one table of element loads.
template <typename R, typename Fn>
SLUICE_HOST_DEVICE inline R load_visit(const void* p, DType t, int64_t i, Fn fn) {
  switch (t) {
    case DType::kBool:
      return fn(static_cast<const bool*>(p)[i]);
    case DType::kUInt8:
      return fn(static_cast<const uint8_t*>(p)[i]);
    case DType::kInt8:
      return fn(static_cast<const int8_t*>(p)[i]);
    case DType::kUInt16:
      return fn(static_cast<const uint16_t*>(p)[i]);
    case DType::kInt16:
      return fn(static_cast<const int16_t*>(p)[i]);
    case DType::kUInt32:
      return fn(static_cast<const uint32_t*>(p)[i]);
    case DType::kInt32:
      return fn(static_cast<const int32_t*>(p)[i]);
    case DType::kInt64:
      return fn(static_cast<const int64_t*>(p)[i]);
    case DType::kFloat16:
      return fn(half_bits_to_float(static_cast<const uint16_t*>(p)[i]));
    case DType::kBFloat16:
      return fn(bfloat16_bits_to_float(static_cast<const uint16_t*>(p)[i]));
    case DType::kFloat32:
      return fn(static_cast<const float*>(p)[i]);
    case DType::kFloat64:
      return fn(static_cast<const double*>(p)[i]);
    case DType::kUInt64:
      return fn(static_cast<const uint64_t*>(p)[i]);
  }
  return R{};
}

struct LoadAsF64 {
  template <typename T>
  SLUICE_HOST_DEVICE double operator()(T v) const {
    if constexpr (std::is_same_v<T, bool>) {
      return v ? 1.0 : 0.0;
    } else {
      return static_cast<double>(v);
    }
  }
};

// Floating values go through double, as load_f64 gives them.
struct LoadAsI64 {
  template <typename T>
  SLUICE_HOST_DEVICE int64_t operator()(T v) const {
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<int64_t>(static_cast<double>(v));
    } else {
      return static_cast<int64_t>(v);
    }
  }
};

SLUICE_HOST_DEVICE inline double load_f64(const void* p, DType t, int64_t i) {
  return load_visit<double>(p, t, i, LoadAsF64{});
}

// Integral types only.
SLUICE_HOST_DEVICE inline int64_t load_i64(const void* p, DType t, int64_t i) {
  return load_visit<int64_t>(p, t, i, LoadAsI64{});
}

SLUICE_HOST_DEVICE inline bool is_float_type(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 ||
         t == DType::kFloat64;
}

SLUICE_HOST_DEVICE inline void int_range(DType t, int64_t& lo, int64_t& hi) {
  switch (t) {
    case DType::kBool:
      lo = 0, hi = 1;
      return;
    case DType::kUInt8:
      lo = 0, hi = 255;
      return;
    case DType::kInt8:
      lo = -128, hi = 127;
      return;
    case DType::kUInt16:
      lo = 0, hi = 65535;
      return;
    case DType::kInt16:
      lo = -32768, hi = 32767;
      return;
    case DType::kUInt32:
      lo = 0, hi = 4294967295ll;
      return;
    case DType::kInt32:
      lo = -2147483648ll, hi = 2147483647ll;
      return;
    case DType::kUInt64:  // integers are carried as int64 (convert_element handles larger ones)
      lo = 0, hi = INT64_MAX;
      return;
    default:
      lo = INT64_MIN, hi = INT64_MAX;
      return;
  }
}

// Stores an integer value into an integral type, truncating (two's complement wrap).
SLUICE_HOST_DEVICE inline void store_wrap(void* p, DType t, int64_t i, int64_t v) {
  switch (t) {
    case DType::kBool:
      static_cast<bool*>(p)[i] = v != 0;
      return;
    case DType::kUInt8:
      static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v);
      return;
    case DType::kInt8:
      static_cast<int8_t*>(p)[i] = static_cast<int8_t>(v);
      return;
    case DType::kUInt16:
      static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v);
      return;
    case DType::kInt16:
      static_cast<int16_t*>(p)[i] = static_cast<int16_t>(v);
      return;
    case DType::kUInt32:
      static_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v);
      return;
    case DType::kInt32:
      static_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
      return;
    case DType::kInt64:
      static_cast<int64_t*>(p)[i] = v;
      return;
    case DType::kUInt64:
      static_cast<uint64_t*>(p)[i] = static_cast<uint64_t>(v);
      return;
    default:
      return;
  }
}

// Stores a real value: floats round to the target precision (via float for 16-bit types);
// integers round half away from zero and saturate; NaN -> 0.
SLUICE_HOST_DEVICE inline void store_sat(void* p, DType t, int64_t i, double v) {
  switch (t) {
    case DType::kFloat16:
      static_cast<uint16_t*>(p)[i] = float_to_half_bits(static_cast<float>(v));
      return;
    case DType::kBFloat16:
      static_cast<uint16_t*>(p)[i] = float_to_bfloat16_bits(static_cast<float>(v));
      return;
    case DType::kFloat32:
      static_cast<float*>(p)[i] = static_cast<float>(v);
      return;
    case DType::kFloat64:
      static_cast<double*>(p)[i] = v;
      return;
    case DType::kBool:  // the rounded value, as DALI's CPU operators: 0.4 is false
      static_cast<bool*>(p)[i] = round(v) != 0;
      return;
    case DType::kUInt64: {
      double r = round(v);
      static_cast<uint64_t*>(p)[i] = !(r > 0)                      ? 0
                                     : r >= 18446744073709551616.0 ? UINT64_MAX
                                                                   : static_cast<uint64_t>(r);
      return;
    }
    default:
      break;
  }
  if (v != v) {
    store_wrap(p, t, i, 0);
    return;
  }
  int64_t lo, hi;
  int_range(t, lo, hi);
  double r = round(v);
  int64_t x;
  if (r <= static_cast<double>(lo)) {
    x = lo;
  } else if (r >= static_cast<double>(hi)) {
    x = hi;
  } else {
    x = static_cast<int64_t>(r);
  }
  store_wrap(p, t, i, x);
}

// Converts element i of `in` (type ti) to element i of `out` (type to) with DALI's rules.
SLUICE_HOST_DEVICE inline void convert_element(void* out, DType to, const void* in, DType ti,
                                               int64_t i) {
  if (!is_float_type(ti) && !is_float_type(to)) {
    int64_t v;
    if (ti == DType::kUInt64) {  // beyond int64: copied into uint64, else saturated below
      uint64_t u = static_cast<const uint64_t*>(in)[i];
      if (to == DType::kUInt64) {
        static_cast<uint64_t*>(out)[i] = u;
        return;
      }
      v = u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
    } else {
      v = load_i64(in, ti, i);
    }
    if (to == DType::kBool) {
      store_wrap(out, to, i, v != 0);
      return;
    }
    int64_t lo, hi;
    int_range(to, lo, hi);
    // uint32 values never exceed int64; saturate into the target range.
    store_wrap(out, to, i, v < lo ? lo : (v > hi ? hi : v));
    return;
  }
  store_sat(out, to, i, load_f64(in, ti, i));
}

}  // namespace sluice::kernels
