// copy: a deep copy of the input. The GPU class calls only TensorList::copy_from, so it builds
// everywhere and lives here.

#include <cstring>

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(OpSchema("copy")
                           .doc("Copies the input to a new buffer.")
                           .num_inputs(1, 1)
                           .input_doc("input", "Data to copy.")
                           .devices({OpDevice::kCPU, OpDevice::kGPU}));

class CopyCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), in.dtype());
    out.set_layout(in.layout());
    ws.for_each_sample(
        [&](int i, int) {
          if (in.sample_bytes(i))
            std::memcpy(out.raw_sample(i), in.raw_sample(i), in.sample_bytes(i));
        },
        inline_below(in));
  }
};

class CopyGpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override { ws.output(0).copy_from(ws.input(0), ws.stream()); }
};

SLUICE_REGISTER_OPERATOR("copy", OpDevice::kCPU, CopyCpu);
SLUICE_REGISTER_OPERATOR("copy", OpDevice::kGPU, CopyGpu);

}  // namespace
}  // namespace sluice
