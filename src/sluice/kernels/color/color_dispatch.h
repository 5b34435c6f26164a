#pragma once
// The element types of the colour kernels, shared by the CPU and CUDA dispatch.

#include "sluice/core/dtype.h"
#include "sluice/core/error.h"

namespace sluice::kernels::color {

template <typename Fn>
void affine_type_dispatch(DType t, Fn&& fn) {
  switch (t) {
    case DType::kUInt8:
      return fn(TypeTag<uint8_t>{});
    case DType::kInt16:
      return fn(TypeTag<int16_t>{});
    case DType::kInt32:
      return fn(TypeTag<int32_t>{});
    case DType::kFloat16:
      return fn(TypeTag<float16>{});
    case DType::kFloat32:
      return fn(TypeTag<float>{});
    default:
      throw InvalidArgument(make_string("unsupported element type ", dtype_name(t)));
  }
}

}  // namespace sluice::kernels::color
