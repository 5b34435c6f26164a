// coord_transform: out = M * in + T for every point (the last extent holds its components).
// The GPU class is in coord_transform_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/coord_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("coord_transform")
        .doc("Applies a linear transformation to points or vectors: out = M * in + T, with M of "
             "m x n for n-component inputs (the last extent) and m-component outputs.")
        .num_inputs(1, 1)
        .input_doc("input", "Points: at least 2 dimensions, the last one the components.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .optional_arg("M", ArgType::kFloatList,
                      "The matrix, row-major (default: identity); a single value is a diagonal "
                      "matrix.",
                      true)
        .optional_arg("T", ArgType::kFloatList,
                      "The translation vector; a single value is repeated.", true)
        .optional_arg("MT", ArgType::kFloatList,
                      "The block matrix [M T] (n + 1 columns); excludes M and T.", true)
        .arg("dtype", ArgType::kDType, std::string("FLOAT"),
             "Output type: FLOAT or the input's (rounded and saturated)."));

class CoordTransformCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const CoordTransformBatch b = coord_transform_batch(ws);
    TensorList& out = ws.output(0);
    ws.for_each_sample(
        [&](int i, int) {
          const int64_t points = b.in_dim > 0 ? volume(in.shape(i)) / b.in_dim : 0;
          if (points == 0) return;
          kernels::coord_transform_cpu(in.raw_sample(i), in.dtype(), out.raw_sample(i), b.out_type,
                                       points, b.params[i]);
        },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("coord_transform", OpDevice::kCPU, CoordTransformCpu);

}  // namespace
}  // namespace sluice
