#include "sluice/kernels/convolution/convolution.h"

#include "sluice/kernels/convolution/convolution_dispatch.h"
#include "sluice/kernels/convolution/convolution_element.h"

namespace sluice::kernels::conv {

Border parse_border(const std::string& name) {
  if (name == "reflect_101") return Border::kReflect101;
  if (name == "reflect_1001") return Border::kReflect1001;
  if (name == "wrap") return Border::kWrap;
  if (name == "clamp") return Border::kClamp;
  if (name == "constant") return Border::kConstant;
  throw InvalidArgument(make_string("unknown border mode '", name,
                                    "': expected reflect_101, reflect_1001, wrap, clamp or "
                                    "constant"));
}

int64_t SeparableShape::volume() const {
  int64_t v = outer * channels;
  for (int a = 0; a < axes; ++a) v *= extent[a];
  return v;
}

DType mid_type(DType in_type) {
  return in_type == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
}

bool conv_type_supported(DType t) {
  switch (t) {
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kUInt16:
    case DType::kInt16:
    case DType::kUInt32:
    case DType::kInt32:
    case DType::kUInt64:
    case DType::kInt64:
    case DType::kFloat16:
    case DType::kFloat32:
    case DType::kFloat64:
      return true;
    default:
      return false;
  }
}

std::vector<AxisPass> separable_passes(const void* in, void* out, void* const tmp[2],
                                       const SeparableShape& shape, const float* const windows[3],
                                       const int sizes[3], float scale) {
  std::vector<AxisPass> passes;
  const void* src = in;
  for (int a = shape.axes - 1; a >= 0; --a) {
    AxisPass p;
    p.in = src;
    p.out = a == 0 ? out : tmp[(shape.axes - 1 - a) % 2];
    p.window = windows[a];
    p.size = sizes[a];
    p.anchor = (sizes[a] - 1) / 2;
    p.scale = a == 0 ? scale : 1.0f;
    p.outer = shape.outer;
    for (int b = 0; b < a; ++b) p.outer *= shape.extent[b];
    p.extent = shape.extent[a];
    p.inner = shape.channels;
    for (int b = a + 1; b < shape.axes; ++b) p.inner *= shape.extent[b];
    passes.push_back(p);
    src = p.out;
  }
  return passes;
}

void convolve_axis_cpu(const AxisPass& p, DType in_type, DType out_type) {
  conv_pass_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    for (int64_t o = 0; o < p.outer; ++o) {
      for (int64_t x = 0; x < p.extent; ++x) {
        for (int64_t i = 0; i < p.inner; ++i) convolve_element<Out, In>(p, o, x, i);
      }
    }
  });
}

void separable_cpu(const std::vector<AxisPass>& passes, DType in_type, DType out_type) {
  const DType mid = mid_type(in_type);
  for (size_t k = 0; k < passes.size(); ++k) {
    convolve_axis_cpu(passes[k], k == 0 ? in_type : mid, k + 1 == passes.size() ? out_type : mid);
  }
}

}  // namespace sluice::kernels::conv
