#include "sluice/ops/generic/full_op.h"

#include <cstring>
#include <string>
#include <vector>

#include "sluice/kernels/fill/broadcast_fill.h"
#include "sluice/ops/generic/constant_op.h"
#include "sluice/ops/op_policy.h"

namespace sluice {

OpSchema full_shape_args(OpSchema s) {
  return s
      .optional_arg("shape", ArgType::kIntList, "Shape of the output data (default: scalar).",
                    /*per_sample=*/true)
      .optional_arg("layout", ArgType::kString,
                    "Output layout; if set and not empty, it must match the dimensionality of "
                    "the output.");
}

namespace {

bool constant_value_type(DType t) {
  return t != DType::kBFloat16;
}

// The bytes of element 0.. of `src` (type `from`, `n` elements) converted to `to` with DALI's
// ConvertSat.
std::vector<uint8_t> converted(const void* src, DType from, DType to, int64_t n) {
  std::vector<uint8_t> out(static_cast<size_t>(n) * dtype_size(to));
  dtype_dispatch(to, [&](auto to_tag) {
    using T = typename decltype(to_tag)::type;
    T* dst = reinterpret_cast<T*>(out.data());
    dtype_dispatch(from, [&](auto from_tag) {
      using F = typename decltype(from_tag)::type;
      const F* s = static_cast<const F*>(src);
      for (int64_t k = 0; k < n; ++k) {
        if constexpr (std::is_same_v<F, uint64_t>) {
          dst[k] = s[k] > static_cast<uint64_t>(INT64_MAX)
                       ? convert_sat<T>(static_cast<double>(s[k]))
                       : convert_sat<T>(static_cast<int64_t>(s[k]));
        } else if constexpr (std::is_integral_v<F>) {
          dst[k] = convert_sat<T>(static_cast<int64_t>(s[k]));
        } else if constexpr (std::is_floating_point_v<F>) {
          dst[k] = convert_sat<T>(static_cast<double>(s[k]));
        } else {
          dst[k] = convert_sat<T>(static_cast<double>(static_cast<float>(s[k])));
        }
      }
    });
  });
  return out;
}

}  // namespace

template <FullKind Kind>
void FullCpu<Kind>::run(Workspace& ws) {
  constexpr bool like =
      Kind == FullKind::kFullLike || Kind == FullKind::kZerosLike || Kind == FullKind::kOnesLike;
  constexpr bool has_fill = Kind == FullKind::kFull || Kind == FullKind::kFullLike;
  const int n = ws.batch_size();
  const TensorList* fill = has_fill ? &ws.input(like ? 1 : 0) : nullptr;
  std::vector<Shape> shapes(n);
  DType dtype;
  Layout layout;
  if constexpr (like) {
    const TensorList& ref = ws.input(0);
    shapes = ref.shapes();
    layout = ref.layout();
    dtype = spec_.has_arg("dtype") ? parse_dtype(spec_.arg<std::string>("dtype")) : ref.dtype();
  } else {
    for (int i = 0; i < n; ++i) {
      if (spec_.has_arg("shape") || ws.arg_input("shape")) {
        shapes[i] = ws.arg_list<int64_t>("shape", i);
      }
      for (int64_t e : shapes[i]) {
        SLUICE_CHECK(e >= 0, InvalidArgument, "Input size less than zero not supported: shape ",
                     shape_to_string(shapes[i]));
      }
    }
    dtype = fill ? fill->dtype() : parse_dtype(spec_.arg<std::string>("dtype"));
    if (spec_.has_arg("layout")) layout = spec_.arg<std::string>("layout");
    for (int i = 0; i < n && !layout.empty(); ++i) {
      SLUICE_CHECK(layout.size() == shapes[i].size(), InvalidArgument, "Layout '", layout, "' has ",
                   layout.size(), " dimensions but output shape has ", shapes[i].size(),
                   " dimensions.");
    }
  }
  SLUICE_CHECK(constant_value_type(dtype), InvalidArgument,
               "Unsupported type: ", dtype_name(dtype));
  if (fill) {
    SLUICE_CHECK(constant_value_type(fill->dtype()), InvalidArgument,
                 "Unsupported type: ", dtype_name(fill->dtype()));
    for (int i = 0; i < n; ++i) {
      SLUICE_CHECK(kernels::can_broadcast(shapes[i], fill->shape(i)), InvalidArgument, "Shapes ",
                   shape_to_string(shapes[i]), " and ", shape_to_string(fill->shape(i)),
                   " can't be broadcast.");
    }
  }
  TensorList& out = ws.output(0);
  out.resize(shapes, dtype);
  out.set_layout(layout);
  const int64_t one = Kind == FullKind::kOnes || Kind == FullKind::kOnesLike ? 1 : 0;
  const std::vector<uint8_t> constant = converted(&one, DType::kInt64, dtype, 1);
  ws.for_each_sample(
      [&](int i, int) {
        if (fill) {
          const Shape& fs = fill->shape(i);
          std::vector<uint8_t> value =
              converted(fill->raw_sample(i), fill->dtype(), dtype, volume(fs));
          kernels::broadcast_fill_cpu(out.raw_sample(i), shapes[i], value.data(), fs,
                                      dtype_size(dtype));
        } else {
          kernels::broadcast_fill_cpu(out.raw_sample(i), shapes[i], constant.data(), {},
                                      dtype_size(dtype));
        }
      },
      inline_below(out));
}

template class FullCpu<FullKind::kFull>;
template class FullCpu<FullKind::kFullLike>;
template class FullCpu<FullKind::kZeros>;
template class FullCpu<FullKind::kZerosLike>;
template class FullCpu<FullKind::kOnes>;
template class FullCpu<FullKind::kOnesLike>;

}  // namespace sluice
