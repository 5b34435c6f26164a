// transforms.combine: the product of two or more affine transforms, per sample.

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/geometry/affine.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("transforms.combine")
        .doc("Combines two or more affine transforms: the result applies the inputs in the order "
             "given (the reverse order with reverse_order).")
        .num_inputs(2, 99)
        .input_doc("input", "Transforms (ndim x (ndim + 1) FLOAT), all of the same shape.")
        .arg("reverse_order", ArgType::kBool, false, "Apply the inputs in the reverse order."));

class CombineCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in0 = ws.input(0);
    const int n = in0.num_samples();
    int ndim = 0;
    if (n > 0) {
      const Shape& s0 = in0.shape(0);
      SLUICE_CHECK(
          s0.size() == 2 && s0[1] == s0[0] + 1 && s0[0] >= 1 && s0[0] <= kernels::kMaxAffineDims,
          InvalidArgument,
          "The input, if provided, is expected to be a 2D tensor with dimensions "
          "(ndim, ndim+1) representing an affine transform. Got: ",
          shape_to_string(s0));
      ndim = static_cast<int>(s0[0]);
    }
    for (int k = 0; k < ws.num_inputs(); ++k) {
      const TensorList& in = ws.input(k);
      SLUICE_CHECK(in.dtype() == DType::kFloat32, InvalidArgument,
                   "Unexpected input data type. Expected FLOAT, got: ", dtype_name(in.dtype()));
      for (int i = 0; i < n; ++i) {
        SLUICE_CHECK(in.shape(i) == in0.shape(0), InvalidArgument,
                     "All input transforms are expected to have the same shape. Got: ",
                     shape_to_string(in0.shape(0)), " and ", shape_to_string(in.shape(i)),
                     " for the ", k, "-th input.");
      }
    }
    TensorList& out = ws.output(0);
    out.resize_uniform(n, Shape{ndim, ndim + 1}, DType::kFloat32);
    out.set_layout("");
    const bool reverse = spec_.arg<bool>("reverse_order");
    const size_t count = static_cast<size_t>(ndim) * (ndim + 1);
    for (int i = 0; i < n; ++i) {
      auto m = kernels::AffineMatrix::identity(ndim);
      for (int k = 0; k < ws.num_inputs(); ++k) {
        auto next = kernels::AffineMatrix::from_rows(
            ndim, std::span<const float>(ws.input(k).sample<float>(i), count));
        m = reverse ? m * next : next * m;
      }
      m.to_rows(out.sample<float>(i));
    }
  }
};

SLUICE_REGISTER_OPERATOR("transforms.combine", OpDevice::kCPU, CombineCpu);

}  // namespace
}  // namespace sluice
