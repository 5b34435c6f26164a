#include "sluice/ops/generic/erase_args.h"

#include <algorithm>

#include "sluice/ops/generic/axes_args.h"

namespace sluice {
namespace {

// The dimensions `anchor` and `shape` refer to, in their order: axis_names, else axes, else
// every dimension but the channels.
std::vector<int> erase_axes(const OpSpec& spec, const Layout& layout, int ndim) {
  std::vector<int> axes;
  if (spec.has_arg("axis_names")) {
    axes = axes_from_names(layout, spec.arg<std::string>("axis_names"));
  } else if (spec.has_arg("axes")) {
    for (int64_t a : spec.arg<std::vector<int64_t>>("axes")) {
      SLUICE_CHECK(a >= 0 && a < ndim, InvalidArgument, "axis ", a,
                   " is out of range for input of ", ndim, " dimensions");
      axes.push_back(static_cast<int>(a));
    }
  } else {
    for (int d = 0; d < ndim; ++d) {
      if (d >= static_cast<int>(layout.size()) || layout[d] != 'C') axes.push_back(d);
    }
  }
  SLUICE_CHECK(!axes.empty(), InvalidArgument, "no axes given for the erased regions");
  return axes;
}

}  // namespace

void check_erase_input(const TensorList& in) {
  switch (in.dtype()) {
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
      break;
    default:
      throw InvalidArgument(make_string("unsupported input type ", dtype_name(in.dtype())));
  }
  const int ndim = in.sample_ndim();
  SLUICE_CHECK(ndim >= 1 && ndim <= kernels::kEraseMaxDims, InvalidArgument,
               "unsupported number of dimensions ", ndim, " (1 to ", kernels::kEraseMaxDims,
               " are supported)");
}

void erase_sample_args(const Workspace& ws, const TensorList& in, int i, kernels::EraseSample& s,
                       std::vector<kernels::EraseBox>& boxes, std::vector<uint64_t>& fill) {
  const OpSpec& spec = ws.spec();
  bool norm_anchor = spec.arg<bool>("normalized_anchor");
  bool norm_shape = spec.arg<bool>("normalized_shape");
  if (spec.has_arg("normalized")) {
    SLUICE_CHECK(!spec.has_arg("normalized_anchor") && !spec.has_arg("normalized_shape"),
                 InvalidArgument,
                 "`normalized` cannot be given together with `normalized_anchor` or "
                 "`normalized_shape`");
    norm_anchor = norm_shape = spec.arg<bool>("normalized");
  }
  const Layout& layout = in.layout();
  const size_t c_pos = layout.find('C');
  const int channel_dim = c_pos == Layout::npos ? -1 : static_cast<int>(c_pos);
  const std::vector<float> fill_values = ws.arg_list<float>("fill_value", i);
  SLUICE_CHECK(channel_dim >= 0 || fill_values.size() <= 1, InvalidArgument,
               "a multi-channel fill value needs an input layout with a 'C' dimension");

  const Shape& shape = in.shape(i);
  const int ndim = static_cast<int>(shape.size());
  const std::vector<int> axes = erase_axes(spec, layout, ndim);
  std::vector<float> anchor = ws.arg_list<float>("anchor", i);
  const std::vector<float> extent = ws.arg_list<float>("shape", i);
  if (anchor.empty()) anchor.resize(extent.size(), 0.0f);
  SLUICE_CHECK(anchor.size() == extent.size(), InvalidArgument, "`anchor` has ", anchor.size(),
               " values and `shape` ", extent.size(), "; they must have as many");
  SLUICE_CHECK(extent.size() % axes.size() == 0, InvalidArgument, "`shape` has ", extent.size(),
               " values, not a multiple of the ", axes.size(), " axes");
  const bool centered = spec.arg<bool>("centered_anchor");

  s.ndim = ndim;
  s.volume = volume(shape);
  for (int d = 0; d < ndim; ++d) s.extent[d] = shape[d];
  s.first_box = static_cast<int64_t>(boxes.size());
  s.num_boxes = static_cast<int>(extent.size() / axes.size());
  for (size_t k = 0; k < extent.size();) {
    kernels::EraseBox b{};
    for (int d = 0; d < ndim; ++d) b.hi[d] = shape[d];
    for (int axis : axes) {
      const float dim = static_cast<float>(shape[axis]);
      float a = norm_anchor ? anchor[k] * dim : anchor[k];
      const float e = norm_shape ? extent[k] * dim : extent[k];
      if (centered) a -= e / 2;
      // DALI truncates both ends towards zero, then clips to the sample.
      b.lo[axis] = std::max<int64_t>(static_cast<int64_t>(a), 0);
      b.hi[axis] = std::min<int64_t>(static_cast<int64_t>(a + e), shape[axis]);
      ++k;
    }
    boxes.push_back(b);
  }

  s.channel_dim = fill_values.size() > 1 ? channel_dim : -1;
  if (s.channel_dim >= 0 && s.num_boxes > 0) {
    SLUICE_CHECK(static_cast<int64_t>(fill_values.size()) == shape[channel_dim], InvalidArgument,
                 "the fill value has ", fill_values.size(), " channels and the input ",
                 shape[channel_dim]);
  }
  s.first_fill = static_cast<int64_t>(fill.size());
  s.num_fill = std::max<int>(1, static_cast<int>(fill_values.size()));
  dtype_dispatch(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, bfloat16> ||
                  std::is_same_v<T, double>) {
      throw InvalidArgument("unsupported input type");
    } else {
      if (fill_values.empty()) fill.push_back(kernels::erase_fill_bits<T>(0.0f));
      for (float v : fill_values) fill.push_back(kernels::erase_fill_bits<T>(v));
    }
  });
}

}  // namespace sluice
