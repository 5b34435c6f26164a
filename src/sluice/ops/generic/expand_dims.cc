// expand_dims: inserts dimensions of extent 1 (DataNode indexing with sluice.newaxis), without a
// copy (the output views the input's memory, so one class serves both devices).

#include <algorithm>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/reshape.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("expand_dims")
        .doc("Inserts dimensions of extent 1 at the output positions `axes`; `new_axis_names` "
             "names them in the layout (otherwise the output has no layout).")
        .num_inputs(1, 1)
        .input_doc("input", "Data of any shape.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .required_arg("axes", ArgType::kIntList, "Where the new dimensions go, in the output.")
        .arg("new_axis_names", ArgType::kString, std::string(),
             "Layout names of the new dimensions, one per axis."));

class ExpandDimsOp : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override {
    const auto axes = spec_.arg<std::vector<int64_t>>("axes");
    names_ = spec_.arg<std::string>("new_axis_names");
    SLUICE_CHECK(names_.empty() || names_.size() == axes.size(), InvalidArgument, "Specified ",
                 axes.size(), " new dimensions, but layout contains only ", names_.size(),
                 " new dimension names");
    for (size_t k = 0; k < axes.size(); ++k) {
      SLUICE_CHECK(axes[k] >= 0, InvalidArgument, "Axis value can't be negative");
      axes_.push_back({axes[k], names_.empty() ? ' ' : names_[k]});
    }
    std::sort(axes_.begin(), axes_.end());
    for (size_t k = 1; k < axes_.size(); ++k) {
      SLUICE_CHECK(axes_[k].first != axes_[k - 1].first, InvalidArgument,
                   "Duplicate axis index found.");
    }
  }

 void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    std::vector<Shape> shapes;
    Layout layout;
    plan(in, shapes, layout);
    TensorList& out = ws.output(0);
    view_as(in, out, std::move(shapes), in.dtype());
    out.set_layout(layout);
  }

 private:
  // Output shapes and layout for the input `in`.
  void plan(const TensorList& in, std::vector<Shape>& shapes, Layout& layout) const {
    const int out_ndim = in.sample_ndim() + static_cast<int>(axes_.size());
    for (const auto& a : axes_) {
      SLUICE_CHECK(a.first < out_ndim, InvalidArgument,
                   "Data has not enough dimensions to add new axes at specified indices.");
    }
    SLUICE_CHECK(names_.empty() || !in.layout().empty(), InvalidArgument,
                 "Specifying ``new_axis_names`` requires an input with a proper layout.");
    shapes.assign(in.num_samples(), Shape());
    layout.clear();
    for (int i = 0; i < in.num_samples(); ++i) {
      size_t next = 0, a = 0;
      for (int d = 0; d < out_ndim; ++d) {
        const bool added = a < axes_.size() && axes_[a].first == d;
        shapes[i].push_back(added ? 1 : in.shape(i)[next]);
        if (i == 0 && !names_.empty()) layout += added ? axes_[a].second : in.layout()[next];
        added ? ++a : ++next;
      }
    }
    if (axes_.empty()) layout = in.layout();
  }

  std::vector<std::pair<int64_t, char>> axes_;  // sorted, with their names
  std::string names_;
};

SLUICE_REGISTER_OPERATOR("expand_dims", OpDevice::kCPU, ExpandDimsOp);
SLUICE_REGISTER_OPERATOR("expand_dims", OpDevice::kGPU, ExpandDimsOp);

}  // namespace
}  // namespace sluice
