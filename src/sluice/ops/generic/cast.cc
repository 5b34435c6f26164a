// cast and cast_like: convert the element type (DALI's rules: round to nearest, saturate) to
// `dtype` or to the second input's type. The GPU class is in cast_gpu.cc.

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/elementwise/elementwise_cpu.h"
#include "sluice/ops/generic/cast_target.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(OpSchema("cast")
                           .doc("Casts the data to `dtype`. Floating-point values converted to "
                                "integers are rounded to nearest (ties away from zero) and "
                                "saturated.")
                           .num_inputs(1, 1)
                           .input_doc("input", "Data to convert.")
                           .devices({OpDevice::kCPU, OpDevice::kGPU})
                           .required_arg("dtype", ArgType::kDType, "Output data type."));

SLUICE_REGISTER_SCHEMA(OpSchema("cast_like")
                           .doc("Casts the first input to the type of the second input, with "
                                "`cast`'s conversion rules.")
                           .num_inputs(2, 2)
                           .input_doc("input", "Data to convert.")
                           .input_doc("like", "Data whose type the output takes.")
                           .devices({OpDevice::kCPU, OpDevice::kGPU}));

class CastCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const DType to = cast_target(spec_, ws);
    out.resize(in.shapes(), to);
    out.set_layout(in.layout());
    ws.for_each_sample(
        [&](int i, int) {
          kernels::cast_cpu(out.raw_sample(i), to, in.raw_sample(i), in.dtype(),
                            volume(in.shape(i)));
        },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("cast", OpDevice::kCPU, CastCpu);
SLUICE_REGISTER_OPERATOR("cast_like", OpDevice::kCPU, CastCpu);

}  // namespace
}  // namespace sluice
