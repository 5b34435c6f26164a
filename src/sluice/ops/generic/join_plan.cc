#include <string>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/join.h"

namespace sluice {

OpSchema join_args(OpSchema s, const char* axis_name_doc) {
  s.num_inputs(1, 999)
      .input_doc("inputs", "Tensors of one type and number of dimensions.")
      .devices({OpDevice::kCPU, OpDevice::kGPU})
      .arg("axis", ArgType::kInt, int64_t{0}, "The axis, as an index (negative: from the back).")
      .optional_arg("axis_name", ArgType::kString, axis_name_doc);
  return s;
}

namespace {

// The first non-empty input layout (DALI's choice when they differ).
Layout first_layout(const Workspace& ws) {
  for (int k = 0; k < ws.num_inputs(); ++k) {
    if (!ws.input(k).layout().empty()) return ws.input(k).layout();
  }
  return Layout();
}

}  // namespace

std::vector<kernels::JoinPiece> plan_join(const OpSpec& spec, const Workspace& ws, TensorList& out,
                                          bool new_axis) {
  const TensorList& in0 = ws.input(0);
  const int ndim = in0.sample_ndim();
  const int k_in = ws.num_inputs();
  for (int k = 1; k < k_in; ++k) {
    SLUICE_CHECK(ws.input(k).dtype() == in0.dtype() && ws.input(k).sample_ndim() == ndim,
                 InvalidArgument, "All inputs must have the same type and number of dimensions.");
  }
  SLUICE_CHECK(new_axis || !(spec.has_arg("axis") && spec.has_arg("axis_name")), InvalidArgument,
               "Arguments ``axis`` and ``axis_name`` cannot be used together.");
  const Layout in_layout = first_layout(ws);
  Layout layout = new_axis ? Layout() : in_layout;
  int axis = static_cast<int>(spec.arg<int64_t>("axis"));
  if (new_axis) {
    SLUICE_CHECK(axis >= -ndim && axis <= ndim, InvalidArgument, "axis ", axis,
                 " is out of range for stacking ", ndim, "D tensors: valid range is [", -ndim, ", ",
                 ndim, "]");
    if (axis < 0) axis += ndim + 1;
    if (spec.has_arg("axis_name")) {
      const std::string name = spec.arg<std::string>("axis_name");
      SLUICE_CHECK(name.size() == 1, InvalidArgument,
                   "``axis_name`` must be a single character; got ", name);
      SLUICE_CHECK(!in_layout.empty() || ndim == 0, InvalidArgument,
                   "``axis_name`` needs inputs with a layout");
      layout = in_layout;
      layout.insert(layout.begin() + axis, name[0]);
    }
  } else {
    if (spec.has_arg("axis_name")) {
      const std::string name = spec.arg<std::string>("axis_name");
      const auto pos = name.size() == 1 ? in_layout.find(name[0]) : std::string::npos;
      SLUICE_CHECK(pos != std::string::npos, InvalidArgument,
                   "``axis_name`` specifies an undefined axis '", name, "' for layout \"",
                   in_layout, "\"");
      axis = static_cast<int>(pos);
    }
    SLUICE_CHECK(axis >= -ndim && axis < ndim, InvalidArgument, "axis ", axis,
                 " is out of range for ", ndim, "D tensors: valid range is [", -ndim, ", ",
                 ndim - 1, "]");
    if (axis < 0) axis += ndim;
  }
  const int n = in0.num_samples();
  std::vector<Shape> shapes(n);
  for (int i = 0; i < n; ++i) {
    const Shape& ref = in0.shape(i);
    Shape s = ref;
    if (new_axis) {
      s.insert(s.begin() + axis, k_in);
    } else {
      s[axis] = 0;
    }
    for (int k = 0; k < k_in; ++k) {
      SLUICE_CHECK(ws.input(k).num_samples() == n, InvalidArgument,
                   "All inputs must have the same number of samples");
      const Shape& sk = ws.input(k).shape(i);
      for (int d = 0; d < ndim; ++d) {
        if (new_axis) {
          SLUICE_CHECK(sk[d] == ref[d], InvalidArgument,
                       "Tensor stacking requires that all tensors being stacked are of equal "
                       "shape; input ",
                       k, " of sample ", i, " differs from input 0");
        } else if (d != axis) {
          SLUICE_CHECK(sk[d] == ref[d], InvalidArgument,
                       "Concatenated tensors can differ in size only in the concatenation axis (",
                       axis, "); input ", k, " of sample ", i, " differs in axis ", d);
        }
      }
      if (!new_axis) s[axis] += sk[axis];
    }
    shapes[i] = std::move(s);
  }
  out.resize(shapes, in0.dtype());
  out.set_layout(layout);
  std::vector<kernels::JoinPiece> pieces;
  pieces.reserve(static_cast<size_t>(n) * k_in);
  for (int i = 0; i < n; ++i) {
    int64_t rows = 1;
    for (int d = 0; d < axis; ++d) rows *= in0.shape(i)[d];
    const size_t pitch = rows ? out.sample_bytes(i) / static_cast<size_t>(rows) : 0;
    size_t offset = 0;
    for (int k = 0; k < k_in; ++k) {
      const TensorList& t = ws.input(k);
      const size_t width = rows ? t.sample_bytes(i) / static_cast<size_t>(rows) : 0;
      if (width) {
        pieces.push_back(
            {static_cast<char*>(out.raw_sample(i)) + offset, t.raw_sample(i), width, pitch, rows});
      }
      offset += width;
    }
  }
  return pieces;
}

}  // namespace sluice
