#pragma once
// coord_transform_dispatch() of coord_transform.h.

#include "sluice/core/error.h"
#include "sluice/kernels/geometry/coord_transform.h"

namespace sluice::kernels {

template <typename Fn>
void coord_transform_dispatch(DType in_type, DType out_type, Fn&& fn) {
  SLUICE_CHECK(out_type == in_type || out_type == DType::kFloat32, InvalidArgument,
               "CoordTransform output type must be the same as input type, which is ",
               dtype_name(in_type), ", or `float`. Got: ", dtype_name(out_type));
  auto with_in = [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    if (out_type == DType::kFloat32) return fn(in_tag, TypeTag<float>{});
    return fn(in_tag, TypeTag<In>{});
  };
  switch (in_type) {
    case DType::kUInt8:
      return with_in(TypeTag<uint8_t>{});
    case DType::kInt16:
      return with_in(TypeTag<int16_t>{});
    case DType::kUInt16:
      return with_in(TypeTag<uint16_t>{});
    case DType::kInt32:
      return with_in(TypeTag<int32_t>{});
    case DType::kFloat32:
      return with_in(TypeTag<float>{});
    default:
      throw InvalidArgument(make_string("Unsupported input type: ", dtype_name(in_type)));
  }
}

}  // namespace sluice::kernels
