// lookup_table: maps integer inputs through a table given by `keys` and `values`. The GPU class
// is in lookup_table_gpu.cc; the arguments are read in lookup_args.cc.

#include <string>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/lookup_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("lookup_table")
        .doc("Maps the input to the output through a lookup table: an input value found in "
             "`keys` gives the matching entry of `values` (the last one for a repeated key), "
             "any other value `default_value`.")
        .num_inputs(1, 1)
        .input_doc("input", "Integer keys.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("keys", ArgType::kIntList, std::vector<int64_t>{},
             "The input values (keys) of the table, in [0, 65535]; as many as `values`.")
        .arg("values", ArgType::kFloatList, std::vector<double>{},
             "The output value of each key, converted to `dtype` (rounded, saturated).")
        .arg("default_value", ArgType::kFloat, 0.0,
             "The output for keys that are not in the table.")
        .arg("dtype", ArgType::kDType, std::string("FLOAT"), "Output data type.")
        .optional_arg("output_dtype", ArgType::kDType, "Deprecated name of `dtype`."));

class LookupTableCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    LookupPlan p = plan_lookup(spec_, in.dtype());
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), p.out_type);
    out.set_layout(in.layout());
    const kernels::LookupParams params{in.dtype(), p.word_size, p.table.data(), p.table_size,
                                       p.default_bits};
    ws.for_each_sample(
        [&](int i, int) {
          kernels::lookup_cpu({in.raw_sample(i), out.raw_sample(i), volume(in.shape(i))}, params);
        },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("lookup_table", OpDevice::kCPU, LookupTableCpu);

}  // namespace
}  // namespace sluice
