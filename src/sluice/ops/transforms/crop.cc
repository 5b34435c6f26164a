// transforms.crop: the matrix mapping the box [from_start, from_end] onto [to_start, to_end].

#include <algorithm>
#include <utility>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/transforms/transform_op.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(transform_schema(
    OpSchema("transforms.crop")
        .doc("Produces an affine transform matrix that maps the box from_start..from_end onto "
             "to_start..to_end (e.g. coordinates after a crop); with an input matrix, applies it "
             "to it.")
        .arg("from_start", ArgType::kFloatList, std::vector<double>{0.0},
             "The lower bound of the original coordinate space (a single value is repeated).", true)
        .arg("from_end", ArgType::kFloatList, std::vector<double>{1.0},
             "The upper bound of the original coordinate space.", true)
        .arg("to_start", ArgType::kFloatList, std::vector<double>{0.0},
             "The lower bound of the destination coordinate space.", true)
        .arg("to_end", ArgType::kFloatList, std::vector<double>{1.0},
             "The upper bound of the destination coordinate space.", true)
        .arg("absolute", ArgType::kBool, false,
             "Swap start and end coordinates where start > end.")));

constexpr const char* kArgs[] = {"from_start", "from_end", "to_start", "to_end"};

class CropTransformCpu : public TransformOp {
 public:
  using TransformOp::TransformOp;

 protected:
  int transform_ndim(const Workspace& ws, int) const override {
    int ndim = 0;
    for (const char* a : kArgs) ndim = std::max(ndim, transform_arg_size(ws, a));
    for (const char* a : kArgs) {
      const int size = transform_arg_size(ws, a);
      SLUICE_CHECK(size == ndim || size == 1, InvalidArgument,
                   "Arguments ``from_start``, ``from_end``, ``to_start`` and ``to_end`` should "
                   "have the same number of dimensions or be a single element which will be "
                   "broadcast to all dimensions");
    }
    return ndim;
  }
  kernels::AffineMatrix transform(const Workspace& ws, int sample, int ndim) const override {
    auto from_start = transform_vector_arg(ws, "from_start", sample, ndim);
    auto from_end = transform_vector_arg(ws, "from_end", sample, ndim);
    auto to_start = transform_vector_arg(ws, "to_start", sample, ndim);
    auto to_end = transform_vector_arg(ws, "to_end", sample, ndim);
    const bool absolute = spec_.arg<bool>("absolute");
    auto m = kernels::AffineMatrix::identity(ndim);
    for (int d = 0; d < ndim; ++d) {
      if (absolute) {
        if (from_start[d] > from_end[d]) std::swap(from_start[d], from_end[d]);
        if (to_start[d] > to_end[d]) std::swap(to_start[d], to_end[d]);
      }
      const float scale = (to_end[d] - to_start[d]) / (from_end[d] - from_start[d]);
      m.at(d, d) = scale;
      m.at(d, ndim) = to_start[d] - scale * from_start[d];
    }
    return m;
  }
};

SLUICE_REGISTER_OPERATOR("transforms.crop", OpDevice::kCPU, CropTransformCpu);

}  // namespace
}  // namespace sluice
