#include "sluice/ops/image/flip_args.h"

#include <array>
#include <string>

namespace sluice {

FlipAxes flip_axes(const TensorList& in) {
  SLUICE_CHECK(in.dtype() != DType::kBool, InvalidArgument,
               "The element type bool is not supported.");
  const int ndim = in.num_samples() > 0 ? static_cast<int>(in.shape(0).size()) : 3;
  std::string layout(in.layout());
  if (layout.empty()) {
    SLUICE_CHECK(ndim >= 3 && ndim <= 5, InvalidArgument, "The number of dimensions ", ndim,
                 " does not match any of the allowed layouts for input 0. Valid layouts are: "
                 "FDHWC, FHWC, DHWC, HWC, FCDHW, FCHW, CDHW, CHW");
    layout = std::array<const char*, 3>{"HWC", "FHWC", "FDHWC"}[ndim - 3];
  }
  static constexpr std::array<const char*, 8> kLayouts = {"FDHWC", "FHWC", "DHWC", "HWC",
                                                          "FCDHW", "FCHW", "CDHW", "CHW"};
  bool known = false;
  for (const char* l : kLayouts) known |= layout == l;
  SLUICE_CHECK(known, InvalidArgument, "The layout \"", layout,
               "\" does not match any of the allowed layouts for input 0. Valid layouts are: "
               "FDHWC, FHWC, DHWC, HWC, FCDHW, FCHW, CDHW, CHW");
  SLUICE_CHECK(static_cast<int>(layout.size()) == ndim, InvalidArgument, "layout \"", layout,
               "\" has ", layout.size(), " dimensions, the input ", ndim);
  FlipAxes a;
  const size_t depth = layout.find('D');
  a.depth = depth == std::string::npos ? -1 : static_cast<int>(depth);
  a.height = static_cast<int>(layout.find('H'));
  a.width = static_cast<int>(layout.find('W'));
  return a;
}

bool flip_as_image(const TensorList& in) {
  switch (in.dtype()) {
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kUInt16:
    case DType::kInt16:
    case DType::kFloat16:
    case DType::kFloat32:
      break;
    default:
      return false;
  }
  const std::string_view l = in.layout();
  if (l == "HWC" || l == "CHW") return true;
  return l.empty() && (in.num_samples() == 0 || in.shape(0).size() == 3);
}

kernels::StridedCopyDesc flip_copy_desc(const TensorList& in, TensorList& out, int sample,
                                        const FlipAxes& axes, bool depthwise, bool vertical,
                                        bool horizontal) {
  const Shape& s = in.shape(sample);
  Shape start(s.size(), 0), step(s.size(), 1);
  auto reverse = [&](int axis, bool on) {
    if (on && axis >= 0 && s[axis] > 0) {
      start[axis] = s[axis] - 1;
      step[axis] = -1;
    }
  };
  reverse(axes.depth, depthwise);
  reverse(axes.height, vertical);
  reverse(axes.width, horizontal);
  kernels::StridedCopyDesc d;
  kernels::describe_strided_copy(d, out.raw_sample(sample), in.raw_sample(sample),
                                 dtype_size(in.dtype()), s, start, step, s);
  return d;
}

}  // namespace sluice
