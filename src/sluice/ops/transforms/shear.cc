// transforms.shear: a shear matrix from factors or angles, about an optional center.

#include <cmath>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/transforms/transform_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(transform_schema(
    OpSchema("transforms.shear")
        .doc("Produces a shear affine transform matrix; with an input matrix, applies the shear "
             "to it.")
        .optional_arg("shear", ArgType::kFloatList,
                      "The shear factors: (shear_x, shear_y) in 2D, (shear_xy, shear_xz, "
                      "shear_yx, shear_yz, shear_zx, shear_zy) in 3D. Excludes `angles`.",
                      true)
        .optional_arg("angles", ArgType::kFloatList,
                      "The shear angles in degrees, in [-90, 90] (factor = tan(angle)). Excludes "
                      "`shear`.",
                      true)
        .optional_arg("center", ArgType::kFloatList, "The center of the shear.", true)));

class ShearCpu : public TransformOp {
 public:
  using TransformOp::TransformOp;

 protected:
  const char* factors_arg(const Workspace& ws) const {
    const bool s = has_transform_arg(ws, "shear"), a = has_transform_arg(ws, "angles");
    SLUICE_CHECK(s + a == 1, InvalidArgument,
                 "One and only one of the following arguments is expected: ``shear`` or "
                 "``angles``");
    return s ? "shear" : "angles";
  }
  int transform_ndim(const Workspace& ws, int) const override {
    const int size = transform_arg_size(ws, factors_arg(ws));
    SLUICE_CHECK(size == 2 || size == 6, InvalidArgument,
                 "Shear matrix must have D*(D-1) elements where D is the number of dimensions. "
                 "Got ",
                 size, " elements.");
    return size == 2 ? 2 : 3;
  }
  kernels::AffineMatrix transform(const Workspace& ws, int sample, int ndim) const override {
    const char* name = factors_arg(ws);
    std::vector<float> f = ws.arg_list<float>(name, sample);
    SLUICE_CHECK(static_cast<int>(f.size()) == ndim * (ndim - 1), InvalidArgument,
                 "Shear matrix must have D*(D-1) elements where D is the number of dimensions. "
                 "Got ",
                 f.size(), " elements.");
    if (name[0] == 'a') {
      for (float& v : f) {
        SLUICE_CHECK(v >= -90.0f && v <= 90.0f, InvalidArgument,
                     "Angle is expected to be in the range [-90, 90]. Got: ", v);
        v = std::tan(kernels::deg2rad(v));
      }
    }
    // Row r holds the factors of the other axes, in order.
    auto m = kernels::AffineMatrix::identity(ndim);
    for (int r = 0, k = 0; r < ndim; ++r) {
      for (int c = 0; c < ndim; ++c) {
        if (c != r) m.at(r, c) = f[k++];
      }
    }
    if (has_transform_arg(ws, "center")) {
      kernels::set_center(m, transform_vector_arg(ws, "center", sample, ndim));
    }
    return m;
  }
};

SLUICE_REGISTER_OPERATOR("transforms.shear", OpDevice::kCPU, ShearCpu);

}  // namespace
}  // namespace sluice
