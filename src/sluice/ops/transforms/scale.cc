// transforms.scale: a scaling matrix about an optional center.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/transforms/transform_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(transform_schema(
    OpSchema("transforms.scale")
        .doc("Produces a scale affine transform matrix; with an input matrix, applies the "
             "scaling to it.")
        .required_arg("scale", ArgType::kFloatList,
                      "The scale factor per dimension; its length gives the number of dimensions "
                      "(a single value is repeated).",
                      true)
        .optional_arg("center", ArgType::kFloatList, "The center of the scaling.", true)
        .optional_arg("ndim", ArgType::kInt,
                      "Number of dimensions, when `scale` is a single value and there is no input "
                      "transform.")));

class ScaleCpu : public TransformOp {
 public:
  using TransformOp::TransformOp;

 protected:
  int transform_ndim(const Workspace& ws, int input_ndim) const override {
    const int size = transform_arg_size(ws, "scale");
    if (size > 1) return size;
    if (input_ndim > 0) return input_ndim;
    if (spec_.has_arg("ndim")) return spec_.arg<int>("ndim");
    return 1;
  }
  kernels::AffineMatrix transform(const Workspace& ws, int sample, int ndim) const override {
    auto scale = transform_vector_arg(ws, "scale", sample, ndim);
    auto m = kernels::AffineMatrix::identity(ndim);
    for (int d = 0; d < ndim; ++d) m.at(d, d) = scale[d];
    if (has_transform_arg(ws, "center")) {
      auto center = transform_vector_arg(ws, "center", sample, ndim);
      for (int d = 0; d < ndim; ++d) m.at(d, ndim) = center[d] * (1.0f - scale[d]);
    }
    return m;
  }
};

SLUICE_REGISTER_OPERATOR("transforms.scale", OpDevice::kCPU, ScaleCpu);

}  // namespace
}  // namespace sluice
