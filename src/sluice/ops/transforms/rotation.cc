// transforms.rotation: a 2D rotation, or a 3D one about `axis`, about an optional center.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/transforms/transform_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(transform_schema(
    OpSchema("transforms.rotation")
        .doc("Produces a rotation affine transform matrix: 3D when `axis` is given, else 2D; "
             "with an input matrix, applies the rotation to it.")
        .required_arg("angle", ArgType::kFloat, "Angle, in degrees.", true)
        .optional_arg("axis", ArgType::kFloatList,
                      "Axis of rotation (3D only); need not be normalised, must not be zero.", true)
        .optional_arg("center", ArgType::kFloatList, "The center of the rotation.", true)));

class RotationCpu : public TransformOp {
 public:
  using TransformOp::TransformOp;

 protected:
  int transform_ndim(const Workspace& ws, int) const override {
    return has_transform_arg(ws, "axis") ? 3 : 2;
  }
  kernels::AffineMatrix transform(const Workspace& ws, int sample, int ndim) const override {
    const float angle = kernels::deg2rad(ws.arg<float>("angle", sample));
    kernels::AffineMatrix m;
    if (ndim == 3) {
      auto axis = ws.arg_list<float>("axis", sample);
      SLUICE_CHECK(axis.size() == 3, InvalidArgument, "Argument \"axis\" expected shape 3 but got ",
                   axis.size(), " values, which can't be interpreted as the expected shape.");
      m = kernels::rotation_3d({axis[0], axis[1], axis[2]}, angle);
    } else {
      m = kernels::rotation_2d(angle);
    }
    if (has_transform_arg(ws, "center")) {
      kernels::set_center(m, transform_vector_arg(ws, "center", sample, ndim));
    }
    return m;
  }
};

SLUICE_REGISTER_OPERATOR("transforms.rotation", OpDevice::kCPU, RotationCpu);

}  // namespace
}  // namespace sluice
