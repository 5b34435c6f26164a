// get_property: a property of each input sample as bytes: where it came from ("source_info") or
// the batch's layout ("layout").

#include "sluice/ops/generic/get_property.h"

#include <cstring>

#include "sluice/graph/schema_registry.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("get_property")
        .doc("Returns a property of each sample of the input as a 1-D uint8 tensor (the bytes of "
             "a string): \"source_info\", the file the sample was read from (empty for "
             "external_source data), or \"layout\", the input's layout.")
        .num_inputs(1, 1)
        .input_doc("input", "Data of any shape and type.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .required_arg("key", ArgType::kString, "The property: \"source_info\" or \"layout\"."));

class GetPropertyCpu : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext&) override { property_ = parse_property(spec_); }
  void run(Workspace& ws) override {
    const std::vector<uint8_t> bytes = plan_property(ws, property_);
    if (!bytes.empty()) std::memcpy(ws.output(0).raw_data(), bytes.data(), bytes.size());
  }

 private:
  Property property_ = Property::kLayout;
};

SLUICE_REGISTER_OPERATOR("get_property", OpDevice::kCPU, GetPropertyCpu);

}  // namespace

Property parse_property(const OpSpec& spec) {
  const auto key = spec.arg<std::string>("key");
  if (key == "source_info") return Property::kSourceInfo;
  SLUICE_CHECK(key == "layout", InvalidArgument, "Unsupported property key: ", key);
  return Property::kLayout;
}

std::vector<uint8_t> plan_property(Workspace& ws, Property p) {
  const int n = ws.batch_size();
  // Sources are known per sample of the iteration; a conditional branch's samples are a subset.
  SLUICE_CHECK(p == Property::kLayout || n == ws.batch().size, NotImplemented,
               "get_property(key=\"source_info\") inside a conditional branch");
  std::vector<std::string> values(n);
  for (int i = 0; i < n; ++i) {
    values[i] = p == Property::kLayout ? ws.input(0).layout() : ws.sample_source(i);
  }
  std::vector<Shape> shapes(n);
  std::vector<uint8_t> bytes;
  for (int i = 0; i < n; ++i) {
    shapes[i] = {static_cast<int64_t>(values[i].size())};
    bytes.insert(bytes.end(), values[i].begin(), values[i].end());
  }
  TensorList& out = ws.output(0);
  out.resize(std::move(shapes), DType::kUInt8);
  out.set_layout("");
  return bytes;
}

}  // namespace sluice
