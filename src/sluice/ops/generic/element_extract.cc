// element_extract: frames of sequences (slices along the leading 'F' extent), one output per index
// of `element_map`.

#include "sluice/ops/generic/element_extract.h"

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("element_extract")
        .doc("Extracts elements (frames) of sequences: one output per index of `element_map`, "
             "each the input's slice at that index of the outermost dimension.")
        .num_inputs(1, 1)
        .input_doc("input", "Sequences: at least 2 dimensions; a layout, if any, starts with F.")
        .num_outputs_from_arg("element_map")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .required_arg("element_map", ArgType::kIntList, "Indices of the elements to extract."));

class ElementExtractCpu : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext&) override { map_ = element_map(spec_); }
  void run(Workspace& ws) override {
    const auto copies = plan_element_extract(ws, map_);
    ws.for_each_sample(
        [&](int i, int) {
          for (size_t k = i; k < copies.size(); k += ws.batch_size()) {
            kernels::copy_sample_cpu(copies[k]);
          }
        },
        inline_below(ws.input(0)));
  }

 private:
  std::vector<int64_t> map_;
};

SLUICE_REGISTER_OPERATOR("element_extract", OpDevice::kCPU, ElementExtractCpu);

}  // namespace

std::vector<int64_t> element_map(const OpSpec& spec) {
  auto map = spec.arg<std::vector<int64_t>>("element_map");
  SLUICE_CHECK(!map.empty(), InvalidArgument, "`element_map` must not be empty");
  for (int64_t e : map) {
    SLUICE_CHECK(e >= 0, InvalidArgument,
                 "Negative indices in `element_map` are not allowed, found: ", e, ".");
  }
  return map;
}

std::vector<kernels::SampleCopy> plan_element_extract(Workspace& ws,
                                                      const std::vector<int64_t>& map) {
  const TensorList& in = ws.input(0);
  const int n = ws.batch_size();
  const Layout& layout = in.layout();
  SLUICE_CHECK(layout.empty() || layout[0] == 'F', InvalidArgument,
               "Input layout must describe a sequence - it must start with 'F', got '", layout,
               "' instead.");
  std::vector<Shape> shapes(n);
  std::vector<int64_t> frame_bytes(n);
  for (int i = 0; i < n; ++i) {
    const Shape& s = in.shape(i);
    SLUICE_CHECK(s.size() > 1, InvalidArgument,
                 "Input must have at least two dimensions - outermost for sequence and at least "
                 "one for data elements.");
    for (int64_t e : map) {
      SLUICE_CHECK(e < s[0], InvalidArgument, "Index `", e,
                   "` from `element_map` is out of bounds for sample with sequence length equal `",
                   s[0], "`.");
    }
    shapes[i].assign(s.begin() + 1, s.end());
    frame_bytes[i] = volume(shapes[i]) * static_cast<int64_t>(dtype_size(in.dtype()));
  }
  const Layout out_layout = layout.empty() ? Layout() : Layout(layout.substr(1));
  std::vector<kernels::SampleCopy> copies;
  copies.reserve(map.size() * n);
  for (size_t k = 0; k < map.size(); ++k) {
    TensorList& out = ws.output(static_cast<int>(k));
    out.resize(shapes, in.dtype());
    out.set_layout(out_layout);
    for (int i = 0; i < n; ++i) {
      const auto* src = static_cast<const uint8_t*>(in.raw_sample(i));
      copies.push_back({out.raw_sample(i), frame_bytes[i] ? src + map[k] * frame_bytes[i] : src,
                        frame_bytes[i]});
    }
  }
  return copies;
}

}  // namespace sluice
