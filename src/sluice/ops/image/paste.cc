// paste: puts each uint8 HWC image on a larger canvas filled with a colour. The GPU class is in
// paste_gpu.cc, the argument handling in paste_args.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/paste_args.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("paste")
        .doc("Pastes each image on a larger canvas, `ratio` times its size, filled with "
             "`fill_value`.")
        .num_inputs(1, 1)
        .input_doc("input", "HWC images (UINT8).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .required_arg("ratio", ArgType::kFloat,
                      "Ratio of the canvas size to the input size; at least 1.", true)
        .arg("n_channels", ArgType::kInt, int64_t{3}, "Number of channels in the image.")
        .required_arg("fill_value", ArgType::kIntList,
                      "The colour of the canvas: one value, or `n_channels` values.")
        .arg("paste_x", ArgType::kFloat, 0.5,
             "Horizontal position of the image on the canvas, from 0 (left) to 1 (right).", true)
        .arg("paste_y", ArgType::kFloat, 0.5,
             "Vertical position of the image on the canvas, from 0 (top) to 1 (bottom).", true)
        .arg("min_canvas_size", ArgType::kFloat, 0.0,
             "The least canvas height and width, after scaling by `ratio`.", true));

class PasteCpu : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext&) override { fill_ = paste_fill(spec_); }
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    check_paste_input(in, static_cast<int64_t>(fill_.size()));
    const int n = in.num_samples();
    std::vector<kernels::PasteSample> samples(n);
    std::vector<Shape> shapes(n);
    for (int i = 0; i < n; ++i) {
      samples[i] = paste_sample(ws, in, i);
      shapes[i] = Shape{samples[i].out_height, samples[i].out_width, samples[i].channels};
    }
    out.resize(shapes, DType::kUInt8);
    out.set_layout("HWC");
    ws.for_each_sample(
        [&](int i, int) {
          kernels::PasteSample s = samples[i];
          s.out = out.sample<uint8_t>(i);
          s.in = in.sample<uint8_t>(i);
          kernels::paste_cpu(s, fill_.data());
        },
        inline_below(out));
  }

 private:
  std::vector<uint8_t> fill_;
};

SLUICE_REGISTER_OPERATOR("paste", OpDevice::kCPU, PasteCpu);

}  // namespace
}  // namespace sluice
