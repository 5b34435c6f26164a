// per_frame: marks samples as sequences (a layout starting with 'F'); the output views the input's
// memory, so one class serves both devices.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/reshape.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("per_frame")
        .doc("Marks the input as a sequence: the layout gets a leading 'F' (the data is "
             "unchanged), so it can feed per-frame arguments of sequence operators.")
        .num_inputs(1, 1)
        .input_doc("input", "Data with at least one dimension.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("replace", ArgType::kBool, false,
             "For an input with a layout: false refuses a layout that does not start with 'F', "
             "true replaces its first character with 'F'. An input without a layout gets 'F' "
             "followed by '*'."));

class PerFrameOp : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext&) override { replace_ = spec_.arg<bool>("replace"); }
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const int ndim = in.sample_ndim();
    SLUICE_CHECK(in.num_samples() == 0 || ndim > 0, InvalidArgument,
                 "Cannot mark zero-dimensional input as a sequence.");
    Layout layout = in.layout();
    if (layout.empty()) {
      layout = ndim > 0 ? "F" + std::string(ndim - 1, '*') : "";
    } else if (replace_) {
      layout[0] = 'F';
    } else {
      SLUICE_CHECK(layout[0] == 'F', InvalidArgument,
                   "Per-frame argument input must be a sequence. The input layout should start "
                   "with 'F', got: ",
                   layout);
    }
    TensorList& out = ws.output(0);
    view_as(in, out, in.shapes(), in.dtype());
    out.set_layout(layout);
  }

 private:
  bool replace_ = false;
};

SLUICE_REGISTER_OPERATOR("per_frame", OpDevice::kCPU, PerFrameOp);
SLUICE_REGISTER_OPERATOR("per_frame", OpDevice::kGPU, PerFrameOp);

}  // namespace
}  // namespace sluice
