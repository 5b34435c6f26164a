#include "sluice/ops/transforms/transform_op.h"

namespace sluice {

OpSchema transform_schema(OpSchema s) {
  s.num_inputs(0, 1)
      .input_doc("input", "Optional: transforms (ndim x (ndim + 1) FLOAT) to apply this one after.")
      .arg("reverse_order", ArgType::kBool, false,
           "Apply this transform before the input's instead of after it.");
  return s;
}

bool has_transform_arg(const Workspace& ws, std::string_view name) {
  return ws.spec().has_arg(name) || ws.arg_input(name) != nullptr;
}

int transform_arg_size(const Workspace& ws, std::string_view name) {
  return static_cast<int>(ws.arg_list<float>(name, 0).size());
}

std::vector<float> transform_vector_arg(const Workspace& ws, std::string_view name, int sample,
                                        int ndim) {
  std::vector<float> v = ws.arg_list<float>(name, sample);
  if (v.size() == 1 && ndim > 1) v.assign(ndim, v[0]);
  SLUICE_CHECK(static_cast<int>(v.size()) == ndim, InvalidArgument, "Argument \"", name,
               "\" expected shape ", ndim, " but got ", v.size(),
               " values, which can't be interpreted as the expected shape.");
  return v;
}

void TransformOp::run(Workspace& ws) {
  const TensorList* in = ws.num_inputs() > 0 ? &ws.input(0) : nullptr;
  const int n = in ? in->num_samples() : ws.batch_size();
  int input_ndim = 0;
  if (in && n > 0) {
    SLUICE_CHECK(in->dtype() == DType::kFloat32, InvalidArgument,
                 "Unexpected input data type. Expected FLOAT, got: ", dtype_name(in->dtype()));
    const Shape& s0 = in->shape(0);
    SLUICE_CHECK(
        s0.size() == 2 && s0[1] == s0[0] + 1 && s0[0] >= 1 && s0[0] <= kernels::kMaxAffineDims,
        InvalidArgument,
        "The input, if provided, is expected to be a 2D tensor with dimensions "
        "(ndim, ndim+1) representing an affine transform. Got: ",
        shape_to_string(s0));
    for (int i = 1; i < n; ++i) {
      SLUICE_CHECK(in->shape(i) == s0, InvalidArgument, "All matrices must have the same shape.");
    }
    input_ndim = static_cast<int>(s0[0]);
  }
  const int ndim = transform_ndim(ws, input_ndim);
  SLUICE_CHECK(ndim >= 1 && ndim <= kernels::kMaxAffineDims, InvalidArgument,
               "Unsupported number of dimensions ", ndim);
  SLUICE_CHECK(!in || input_ndim == ndim, InvalidArgument, "The input describes a ", input_ndim,
               "D transform but other arguments suggest a ", ndim, "D transform");
  TensorList& out = ws.output(0);
  out.resize_uniform(n, Shape{ndim, ndim + 1}, DType::kFloat32);
  out.set_layout("");
  const bool reverse = spec_.arg<bool>("reverse_order");
  for (int i = 0; i < n; ++i) {
    kernels::AffineMatrix m = transform(ws, i, ndim);
    if (in) {
      const float* p = in->sample<float>(i);
      auto prev = kernels::AffineMatrix::from_rows(
          ndim, std::span<const float>(p, static_cast<size_t>(ndim * (ndim + 1))));
      m = reverse ? prev * m : m * prev;
    }
    m.to_rows(out.sample<float>(i));
  }
}

}  // namespace sluice
