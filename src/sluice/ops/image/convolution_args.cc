#include "sluice/ops/image/convolution_args.h"

#include "sluice/kernels/convolution/windows.h"

namespace sluice {

ConvLayout parse_conv_layout(const TensorList& in) {
  const int ndim = in.sample_ndim();
  const Layout& layout = in.layout();
  if (layout.empty()) {
    SLUICE_CHECK(ndim <= 3, InvalidArgument,
                 "Input data with empty layout cannot have more than 3 dimensions, got input "
                 "with ",
                 ndim, " dimensions.");
    return {0, ndim, false};
  }
  int start = 0, end = ndim;
  while (start < ndim && (layout[start] == 'C' || layout[start] == 'F')) ++start;
  const bool channels = end > 0 && layout[end - 1] == 'C' && end - 1 >= start;
  if (channels) --end;
  const int count = end - start;
  SLUICE_CHECK(count > 0, InvalidArgument, "No spatial axes found in the layout: ", layout);
  for (int a = start; a < end; ++a) {
    SLUICE_CHECK(layout[a] != 'C', InvalidArgument,
                 "Only channel-first or channel-last layouts are supported, got: ", layout, ".");
    SLUICE_CHECK(layout[a] != 'F', InvalidArgument,
                 "For sequences, layout should begin with 'F' or 'C', got: ", layout, ".");
  }
  SLUICE_CHECK(start <= 2, InvalidArgument,
               "Found more the one occurrence of 'F' or 'C' axes in layout: ", layout, ".");
  SLUICE_CHECK(count <= 3, InvalidArgument, "Too many dimensions, found: ", count,
               " data axes, maximum supported is: 3.");
  return {start, count, channels};
}

kernels::conv::SeparableShape separable_shape(const Shape& s, const ConvLayout& l) {
  kernels::conv::SeparableShape r;
  r.axes = l.axes;
  for (int d = 0; d < l.outer_dims; ++d) r.outer *= s[d];
  for (int a = 0; a < l.axes; ++a) r.extent[a] = s[l.outer_dims + a];
  r.channels = l.channels ? s.back() : 1;
  return r;
}

template <typename T>
std::vector<T> per_axis(const Workspace& ws, const char* name, int sample, int axes) {
  std::vector<T> v = ws.arg_list<T>(name, sample);
  if (v.size() == 1) v.assign(axes, v[0]);
  SLUICE_CHECK(static_cast<int>(v.size()) == axes, InvalidArgument, "Argument \"", name,
               "\" expects either a single value or a list of ", axes, " elements. ", v.size(),
               " given.");
  return v;
}
template std::vector<int> per_axis(const Workspace&, const char*, int, int);
template std::vector<float> per_axis(const Workspace&, const char*, int, int);

DType conv_output_type(const OpSpec& spec, DType in) {
  if (!spec.has_arg("dtype")) return in;
  const DType t = parse_dtype(spec.arg<std::string>("dtype"));
  SLUICE_CHECK(t == in || t == DType::kFloat32, InvalidArgument,
               "Output data type must be same as input, FLOAT or skipped (defaults to input "
               "type)");
  return t;
}

std::vector<std::vector<float>> gaussian_windows(const Workspace& ws, int sample, int axes) {
  const auto sigma = per_axis<float>(ws, "sigma", sample, axes);
  const auto size = per_axis<int>(ws, "window_size", sample, axes);
  std::vector<std::vector<float>> w(axes);
  for (int a = 0; a < axes; ++a) {
    SLUICE_CHECK(!(sigma[a] == 0 && size[a] == 0), InvalidArgument,
                 "`sigma` and `window_size` shouldn't be 0 at the same time for sample: ", sample,
                 ", axis: ", a, ".");
    SLUICE_CHECK(sigma[a] >= 0, InvalidArgument, "`sigma` must have non-negative values, got ",
                 sigma[a], " for sample: ", sample, ", axis: ", a, ".");
    SLUICE_CHECK(size[a] >= 0, InvalidArgument, "`window_size` must have non-negative values, got ",
                 size[a], " for sample: ", sample, ", axis: ", a, ".");
    const int d = size[a] ? size[a] : kernels::conv::gaussian_diameter(sigma[a]);
    SLUICE_CHECK(d % 2 == 1, InvalidArgument, "Kernel window should have odd length, got: ", d,
                 ".");
    w[a] =
        kernels::conv::gaussian_window(sigma[a] ? sigma[a] : kernels::conv::gaussian_sigma(d), d);
  }
  return w;
}

}  // namespace sluice
