#pragma once
// The (output, input) type pairs of the slice kernels: the same type moves bits (one
// instantiation per element size); conversions go to uint8, float16 or float.

#include <cstdint>

#include "sluice/core/dtype.h"
#include "sluice/core/error.h"

namespace sluice::kernels {

// Calls fn(TypeTag<Out>{}, TypeTag<In>{}).
template <typename Fn>
void slice_dispatch(DType in_type, DType out_type, Fn&& fn) {
  if (in_type == out_type) {
    switch (dtype_size(in_type)) {
      case 1:
        return fn(TypeTag<uint8_t>{}, TypeTag<uint8_t>{});
      case 2:
        return fn(TypeTag<uint16_t>{}, TypeTag<uint16_t>{});
      case 4:
        return fn(TypeTag<uint32_t>{}, TypeTag<uint32_t>{});
      default:
        return fn(TypeTag<uint64_t>{}, TypeTag<uint64_t>{});
    }
  }
  auto with_out = [&](auto out_tag) {
    dtype_dispatch(in_type, [&](auto in_tag) {
      using In = typename decltype(in_tag)::type;
      if constexpr (std::is_same_v<In, bool> || std::is_same_v<In, bfloat16>) {
        throw InvalidArgument(make_string("slice of ", dtype_name(in_type)));
      } else {
        fn(out_tag, in_tag);
      }
    });
  };
  switch (out_type) {
    case DType::kUInt8:
      return with_out(TypeTag<uint8_t>{});
    case DType::kFloat16:
      return with_out(TypeTag<float16>{});
    case DType::kFloat32:
      return with_out(TypeTag<float>{});
    default:
      throw InvalidArgument(make_string("slice to ", dtype_name(out_type)));
  }
}

}  // namespace sluice::kernels
