#include "sluice/kernels/color/color_cpu.h"

#include "sluice/kernels/color/color_dispatch.h"
#include "sluice/kernels/color/color_pixel.h"

namespace sluice::kernels::color {

int in_channels(ColorOp op) {
  switch (op) {
    case ColorOp::kMultiplyAdd:
    case ColorOp::kGrayToRgb:
    case ColorOp::kGrayToYCbCr:
      return 1;
    default:
      return 3;
  }
}

int out_channels(ColorOp op) {
  switch (op) {
    case ColorOp::kMultiplyAdd:
    case ColorOp::kRgbToGray:
    case ColorOp::kBgrToGray:
    case ColorOp::kYCbCrToGray:
      return 1;
    default:
      return 3;
  }
}

bool affine_type_supported(DType t) {
  return t == DType::kUInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kFloat16 ||
         t == DType::kFloat32;
}

void color_cpu(const ColorSample& s, ColorOp op, DType in, DType out) {
  if (op != ColorOp::kMultiplyAdd && op != ColorOp::kMatrix3) {
    SLUICE_CHECK(in == DType::kUInt8 && out == DType::kUInt8, InvalidArgument,
                 "colour space conversions take and give UINT8");
    const int ic = in_channels(op), oc = out_channels(op);
    const auto* src = static_cast<const uint8_t*>(s.in);
    auto* dst = static_cast<uint8_t*>(s.out);
    for (int64_t p = 0; p < s.pixels; ++p) convert_pixel(op, src + p * ic, dst + p * oc);
    return;
  }
  affine_type_dispatch(in, [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    affine_type_dispatch(out, [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      const auto* src = static_cast<const In*>(s.in);
      auto* dst = static_cast<Out*>(s.out);
      if (op == ColorOp::kMultiplyAdd) {
        for (int64_t i = 0; i < s.pixels; ++i) {
          multiply_add_element(src, dst, i, s.m[0], s.offset[0]);
        }
      } else {
        for (int64_t p = 0; p < s.pixels; ++p) matrix_pixel(src, dst, p, s);
      }
    });
  });
}

}  // namespace sluice::kernels::color
