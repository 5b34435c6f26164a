// gaussian_blur: a separable Gaussian over the spatial axes (1 to 3; frames and channels are
// kept apart), with DALI's windows and reflect-101 border. The GPU class is in
// gaussian_blur_gpu.cc.

#include "sluice/ops/image/gaussian_blur.h"

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

namespace sluice {

SeparablePlan plan_gaussian_blur(const Workspace& ws) {
  const TensorList& in = ws.input(0);
  SeparablePlan plan;
  SLUICE_CHECK(kernels::conv::conv_type_supported(in.dtype()), InvalidArgument,
               "Unsupported data type: ", dtype_name(in.dtype()));
  plan.in_type = in.dtype();
  plan.out_type = conv_output_type(ws.spec(), in.dtype());
  const ConvLayout layout = parse_conv_layout(in);
  plan.axes = layout.axes;
  for (int i = 0; i < in.num_samples(); ++i) {
    plan.shapes.push_back(separable_shape(in.shape(i), layout));
    plan.windows.push_back(gaussian_windows(ws, i, layout.axes));
  }
  return plan;
}

namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("gaussian_blur")
        .doc("Blurs images (or volumes, sequences) with a Gaussian, separably over the spatial "
             "axes, with the border reflected (reflect 101: dcb|abcd|cba).")
        .num_inputs(1, 1)
        .input_doc("input",
                   "Data with 1 to 3 spatial axes, optional leading F / C axes and a "
                   "trailing C (without a layout, every axis is spatial).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("sigma", ArgType::kFloatList, std::vector<double>{0.0},
             "Standard deviation, one for all axes or one per axis; 0: from window_size.", true)
        .arg("window_size", ArgType::kIntList, std::vector<int64_t>{0},
             "Window diameter (odd), one for all axes or one per axis; 0: 2 * ceil(3 sigma) + 1.",
             true)
        .optional_arg("dtype", ArgType::kDType, "Output type: the input's (default) or FLOAT."));

class GaussianBlurCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const SeparablePlan plan = plan_gaussian_blur(ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), plan.out_type);
    out.set_layout(in.layout());
    ws.for_each_sample(
        [&](int i, int) {
          const auto& shape = plan.shapes[i];
          // Room for two intermediate images of FLOAT or FLOAT64.
          std::vector<double> scratch(plan.axes > 1 ? 2 * shape.volume() : 0);
          void* tmp[2] = {scratch.data(), scratch.data() + shape.volume()};
          const float* w[3] = {};
          int sizes[3] = {};
          for (int a = 0; a < plan.axes; ++a) {
            w[a] = plan.windows[i][a].data();
            sizes[a] = static_cast<int>(plan.windows[i][a].size());
          }
          kernels::conv::separable_cpu(
              kernels::conv::separable_passes(in.raw_sample(i), out.raw_sample(i), tmp, shape, w,
                                              sizes, 1.0f),
              plan.in_type, plan.out_type);
        },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("gaussian_blur", OpDevice::kCPU, GaussianBlurCpu);

}  // namespace
}  // namespace sluice
