// squeeze: removes dimensions of extent 1, without a copy (the output views the input's memory,
// so one class serves both devices).

#include <algorithm>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/axes_args.h"
#include "sluice/ops/generic/reshape.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("squeeze")
        .doc("Removes the dimensions given as `axes` or `axis_names`; each must have extent 1.")
        .num_inputs(1, 1)
        .input_doc("input", "Data of any type and shape.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .optional_arg("axes", ArgType::kIntList,
                      "The dimensions to remove, as indices (ones outside the input's "
                      "dimensions are ignored, as DALI does).")
        .optional_arg("axis_names", ArgType::kString,
                      "The dimensions to remove, as names in the input's layout."));

class SqueezeOp : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext&) override {
    const bool axes = spec_.has_arg("axes") || spec_.arg_inputs.count("axes");
    const bool names = spec_.has_arg("axis_names");
    SLUICE_CHECK(!(axes && names), InvalidArgument,
                 "Provided both ``axes`` and ``axis_names`` arguments");
    SLUICE_CHECK(axes || names, InvalidArgument, "Missing argument ``axes`` or ``axis_names``.");
  }

  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const int n = in.num_samples();
    const int ndim = in.sample_ndim();
    std::vector<Shape> shapes(n);
    std::vector<bool> removed;
    for (int i = 0; i < n; ++i) {
      removed = removed_dims(ws, in, i);
      for (int d = 0; d < ndim; ++d) {
        if (!removed[d]) shapes[i].push_back(in.shape(i)[d]);
      }
      SLUICE_CHECK(volume(shapes[i]) == volume(in.shape(i)), InvalidArgument,
                   "The volume of the new shape should match the one of the original shape: "
                   "a removed dimension of sample ",
                   i, " does not have extent 1");
    }
    Layout layout;
    if (!in.layout().empty() && n > 0) {
      for (int d = 0; d < ndim; ++d) {
        if (!removed[d]) layout += in.layout()[d];
      }
    }
    TensorList& out = ws.output(0);
    view_as(in, out, std::move(shapes), in.dtype());
    out.set_layout(layout);
  }

 private:
  std::vector<bool> removed_dims(const Workspace& ws, const TensorList& in, int i) const {
    const int ndim = in.sample_ndim();
    std::vector<int64_t> axes;
    if (spec_.has_arg("axis_names")) {
      for (int d : axes_from_names(in.layout(), spec_.arg<std::string>("axis_names"))) {
        axes.push_back(d);
      }
    } else {
      axes = ws.arg_list<int64_t>("axes", i);
    }
    std::vector<bool> removed(ndim, false);
    for (int64_t a : axes) {
      if (a < 0 || a >= ndim) continue;
      SLUICE_CHECK(!removed[a], InvalidArgument,
                   "Specified at least twice same dimension to remove.");
      removed[a] = true;
    }
    return removed;
  }
};

SLUICE_REGISTER_OPERATOR("squeeze", OpDevice::kCPU, SqueezeOp);
SLUICE_REGISTER_OPERATOR("squeeze", OpDevice::kGPU, SqueezeOp);

}  // namespace
}  // namespace sluice
