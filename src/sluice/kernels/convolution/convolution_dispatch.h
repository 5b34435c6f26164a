#pragma once
// The element types of the convolution kernels, shared by the CPU and CUDA dispatch.

#include "sluice/core/dtype.h"
#include "sluice/core/error.h"

namespace sluice::kernels::conv {

template <typename Fn>
void conv_type_dispatch(DType t, Fn&& fn) {
  switch (t) {
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
    case DType::kUInt64:
      return fn(TypeTag<uint64_t>{});
    case DType::kInt64:
      return fn(TypeTag<int64_t>{});
    case DType::kFloat16:
      return fn(TypeTag<float16>{});
    case DType::kFloat32:
      return fn(TypeTag<float>{});
    case DType::kFloat64:
      return fn(TypeTag<double>{});
    default:
      throw InvalidArgument(make_string("Unsupported data type: ", dtype_name(t)));
  }
}

// A pass's (input, output) types: from FLOAT or FLOAT64 (an intermediate image) to any type;
// from another type to itself, FLOAT or FLOAT64.
template <typename Fn>
void conv_pass_dispatch(DType in, DType out, Fn&& fn) {
  if (in == DType::kFloat32 || in == DType::kFloat64) {
    return conv_type_dispatch(in, [&](auto in_tag) {
      conv_type_dispatch(out, [&](auto out_tag) { fn(in_tag, out_tag); });
    });
  }
  conv_type_dispatch(in, [&](auto in_tag) {
    if (out == in) return fn(in_tag, in_tag);
    if (out == DType::kFloat32) return fn(in_tag, TypeTag<float>{});
    if (out == DType::kFloat64) return fn(in_tag, TypeTag<double>{});
    throw InvalidArgument(make_string("convolution from ", dtype_name(in), " to ", dtype_name(out),
                                      " is not supported"));
  });
}

}  // namespace sluice::kernels::conv
