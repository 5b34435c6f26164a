// erase: fills regions of each sample (any layout, 1 to 5 dimensions) with a value. The GPU class
// is in erase_gpu.cc, the argument handling in erase_args.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/generic/erase_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("erase")
        .doc("Erases one or more regions of each sample: fills them with `fill_value`. A region "
             "is an `anchor` and a `shape` over the dimensions `axis_names` or `axes` name "
             "(every dimension but the channels when neither is given); several regions are "
             "given one after another (anchor = (y0, x0, y1, x1, ...)). Regions are clipped to "
             "the sample.")
        .num_inputs(1, 1)
        .input_doc("input", "Data of 1 to 5 dimensions, any layout.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("anchor", ArgType::kFloatList, std::vector<double>{},
             "Start of each region along the chosen axes (zeros when only `shape` is given).", true)
        .arg("shape", ArgType::kFloatList, std::vector<double>{},
             "Extent of each region along the chosen axes.", true)
        .arg("axes", ArgType::kIntList, std::vector<int64_t>{1, 0},
             "The dimensions, by index, that `anchor` and `shape` give, in their order.")
        .arg("axis_names", ArgType::kString, std::string("HW"),
             "The dimensions, by layout name, that `anchor` and `shape` give; wins over `axes`.")
        .arg("fill_value", ArgType::kFloatList, std::vector<double>{0.0},
             "One value, or one per channel (the layout must then have a 'C').", true)
        .arg("normalized_anchor", ArgType::kBool, false,
             "`anchor` is relative to the sample's extent (0 to 1).")
        .arg("normalized_shape", ArgType::kBool, false,
             "`shape` is relative to the sample's extent (0 to 1).")
        .arg("normalized", ArgType::kBool, false,
             "Both `anchor` and `shape` are relative; excludes the two arguments above.")
        .arg("centered_anchor", ArgType::kBool, false,
             "`anchor` is the centre of the region, not its start."));

class EraseCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    check_erase_input(in);
    out.resize(in.shapes(), in.dtype());
    out.set_layout(in.layout());
    const size_t elem = dtype_size(in.dtype());
    ws.for_each_sample(
        [&](int i, int) {
          kernels::EraseSample s{};
          std::vector<kernels::EraseBox> boxes;
          std::vector<uint64_t> fill;
          erase_sample_args(ws, in, i, s, boxes, fill);
          s.out = out.raw_sample(i);
          s.in = in.raw_sample(i);
          kernels::erase_cpu(s, boxes.data(), fill.data(), elem);
        },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("erase", OpDevice::kCPU, EraseCpu);

}  // namespace
}  // namespace sluice
