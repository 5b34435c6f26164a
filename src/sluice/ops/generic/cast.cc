// cast: converts the element type (DALI's rules: round to nearest, saturate).

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/elementwise/elementwise_cpu.h"
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

class CastCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    DType to = parse_dtype(spec_.arg<std::string>("dtype"));
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

}  // namespace
}  // namespace sluice
