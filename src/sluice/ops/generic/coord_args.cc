#include "sluice/ops/generic/coord_args.h"

#include <string>

namespace sluice {

int coord_point_dims(const TensorList& in, const char* op) {
  SLUICE_CHECK(in.sample_ndim() >= 2, InvalidArgument, op,
               " expects an input with at least 2 dimensions.");
  int dim = 0;
  for (int i = 0; i < in.num_samples(); ++i) {
    if (volume(in.shape(i)) == 0) continue;
    const int d = static_cast<int>(in.shape(i).back());
    SLUICE_CHECK(dim == 0 || d == dim, InvalidArgument,
                 "The point dimensions must be the same for all input samples. Got: ", dim, " and ",
                 d, ".");
    dim = d;
  }
  SLUICE_CHECK(dim <= kernels::kMaxPointDims, InvalidArgument,
               "Unsupported input point dimensionality: ", dim);
  return dim;
}

namespace {

bool given(const Workspace& ws, const char* name) {
  return ws.spec().has_arg(name) || ws.arg_input(name) != nullptr;
}

}  // namespace

kernels::CoordTransformParams coord_transform_params(const Workspace& ws, int sample, int in_dim) {
  kernels::CoordTransformParams p;
  p.in_dim = in_dim;
  const bool fused = given(ws, "MT");
  SLUICE_CHECK(!(fused && (given(ws, "M") || given(ws, "T"))), InvalidArgument,
               "The argument ``MT`` is mutually exclusive with ``M`` and ``T``.");
  const char* name = fused ? "MT" : "M";
  const int cols = in_dim + (fused ? 1 : 0);
  if (given(ws, name)) {
    std::vector<float> m = ws.arg_list<float>(name, sample);
    SLUICE_CHECK(!m.empty(), InvalidArgument, "The matrix argument ``", name,
                 "`` must not be an empty list.");
    if (m.size() == 1) {
      p.out_dim = in_dim;
      for (int i = 0; i < in_dim; ++i) p.m[i * in_dim + i] = m[0];
    } else {
      SLUICE_CHECK(m.size() % cols == 0, InvalidArgument, "Cannot form a matrix with ", m.size(),
                   " elements and ", cols, " columns");
      p.out_dim = static_cast<int>(m.size() / cols);
      SLUICE_CHECK(p.out_dim <= kernels::kMaxPointDims, InvalidArgument,
                   "Unsupported output point dimensionality: ", p.out_dim);
      for (int i = 0; i < p.out_dim; ++i) {
        for (int j = 0; j < in_dim; ++j) p.m[i * in_dim + j] = m[i * cols + j];
        if (fused) p.t[i] = m[i * cols + in_dim];
      }
    }
  } else {
    p.out_dim = in_dim;
    for (int i = 0; i < in_dim; ++i) p.m[i * in_dim + i] = 1.0f;
  }
  if (!fused && given(ws, "T")) {
    std::vector<float> t = ws.arg_list<float>("T", sample);
    if (t.size() == 1) t.assign(p.out_dim, t[0]);
    SLUICE_CHECK(static_cast<int>(t.size()) == p.out_dim, InvalidArgument, "Expected ", p.out_dim,
                 "-D translation vectors, got ", t.size(), "-D");
    for (int i = 0; i < p.out_dim; ++i) p.t[i] = t[i];
  }
  return p;
}

kernels::CoordTransformParams coord_flip_params(const Workspace& ws, int sample, int ndim) {
  SLUICE_CHECK(ndim <= 3, InvalidArgument, "Unexpected number of dimensions ", ndim);
  std::string layout = ws.spec().arg<std::string>("layout");
  if (layout.empty()) layout = std::string("xyz").substr(0, ndim);
  kernels::CoordTransformParams p;
  p.in_dim = p.out_dim = ndim;
  for (int d = 0; d < ndim; ++d) p.m[d * ndim + d] = 1.0f;
  const char axes[] = {'x', 'y', 'z'};
  for (int a = 0; a < ndim; ++a) {
    const auto pos = layout.find(axes[a]);
    SLUICE_CHECK(pos != std::string::npos && static_cast<int>(pos) < ndim, InvalidArgument,
                 "Dimension \"", axes[a], "\" not found in the layout");
    const std::string flip = std::string("flip_") + axes[a];
    const std::string center = std::string("center_") + axes[a];
    if (ws.arg<int>(flip, sample) != 0) {
      p.m[pos * ndim + pos] = -1.0f;
      p.t[pos] = 2.0f * ws.arg<float>(center, sample);
    }
  }
  return p;
}

CoordTransformBatch coord_transform_batch(Workspace& ws) {
  const TensorList& in = ws.input(0);
  CoordTransformBatch b;
  b.out_type = parse_dtype(ws.spec().arg<std::string>("dtype"));
  b.in_dim = b.out_dim = coord_point_dims(in, "CoordTransform");
  b.params.resize(in.num_samples());
  for (int i = 0; i < in.num_samples() && b.in_dim > 0; ++i) {
    b.params[i] = coord_transform_params(ws, i, b.in_dim);
    SLUICE_CHECK(i == 0 || b.params[i].out_dim == b.out_dim, InvalidArgument,
                 "Matrices for all samples in the batch must have the same shape.");
    b.out_dim = b.params[i].out_dim;
  }
  TensorList& out = ws.output(0);
  out.resize(coord_output_shapes(in, b.out_dim), b.out_type);
  out.set_layout(in.layout());
  return b;
}

int coord_flip_dims(const TensorList& in) {
  SLUICE_CHECK(in.dtype() == DType::kFloat32, InvalidArgument, "Input is expected to be float");
  SLUICE_CHECK(in.sample_ndim() == 2, InvalidArgument,
               "coord_flip expects 2D input (points x coordinates), got ", in.sample_ndim(),
               " dimensions");
  const int ndim = in.num_samples() > 0 ? static_cast<int>(in.shape(0)[1]) : 0;
  for (int i = 1; i < in.num_samples(); ++i) {
    SLUICE_CHECK(in.shape(i)[1] == ndim, InvalidArgument,
                 "All samples are expected to have coordinates with same number of dimensions.");
  }
  SLUICE_CHECK(ndim <= 3, InvalidArgument, "Unexpected number of dimensions ", ndim);
  return ndim;
}

std::vector<Shape> coord_output_shapes(const TensorList& in, int out_dim) {
  std::vector<Shape> shapes = in.shapes();
  for (Shape& s : shapes) {
    if (!s.empty()) s.back() = out_dim;
  }
  return shapes;
}

}  // namespace sluice
