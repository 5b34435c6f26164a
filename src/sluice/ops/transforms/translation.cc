// transforms.translation: a translation matrix, optionally applied after (or before) an input
// transform.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/transforms/transform_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(transform_schema(
    OpSchema("transforms.translation")
        .doc("Produces a translation affine transform matrix (ndim x (ndim + 1)); with an input "
             "matrix, applies the translation to it.")
        .required_arg("offset", ArgType::kFloatList,
                      "The translation vector; its length gives the number of dimensions.", true)));

class TranslationCpu : public TransformOp {
 public:
  using TransformOp::TransformOp;

 protected:
  int transform_ndim(const Workspace& ws, int input_ndim) const override {
    const int size = transform_arg_size(ws, "offset");
    return size == 1 && input_ndim > 0 ? input_ndim : size;
  }
  kernels::AffineMatrix transform(const Workspace& ws, int sample, int ndim) const override {
    auto offset = transform_vector_arg(ws, "offset", sample, ndim);
    auto m = kernels::AffineMatrix::identity(ndim);
    for (int d = 0; d < ndim; ++d) m.at(d, ndim) = offset[d];
    return m;
  }
};

SLUICE_REGISTER_OPERATOR("transforms.translation", OpDevice::kCPU, TranslationCpu);

}  // namespace
}  // namespace sluice
