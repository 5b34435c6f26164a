// laplacian: the sum over the spatial axes of the second derivatives, each a separable
// convolution (OpenCV's derivative and smoothing windows), scaled. The GPU class is in
// laplacian_gpu.cc.

#include "sluice/ops/image/laplacian.h"

#include <cmath>
#include <numeric>

#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/convolution/windows.h"
#include "sluice/ops/op_policy.h"

namespace sluice {

namespace {
constexpr int kMaxWindow = 31;  // OpenCV's largest
}  // namespace

LaplacianPlan plan_laplacian(const Workspace& ws) {
  const OpSpec& spec = ws.spec();
  const TensorList& in = ws.input(0);
  LaplacianPlan plan;
  SLUICE_CHECK(kernels::conv::conv_type_supported(in.dtype()) && in.dtype() != DType::kFloat64,
               InvalidArgument, "Unsupported data type: ", dtype_name(in.dtype()));
  plan.in_type = in.dtype();
  plan.out_type = conv_output_type(spec, in.dtype());
  const ConvLayout layout = parse_conv_layout(in);
  const int axes = plan.axes = layout.axes;
  const bool normalize = spec.arg<bool>("normalized_kernel");
  const bool has_smoothing = spec.has_arg("smoothing_size") || ws.arg_input("smoothing_size");
  SLUICE_CHECK(!normalize || !(spec.has_arg("scale") || ws.arg_input("scale")), InvalidArgument,
               "Parameter ``scale`` cannot be specified when ``normalized_kernel`` is set to True");
  for (int i = 0; i < in.num_samples(); ++i) {
    plan.shapes.push_back(separable_shape(in.shape(i), layout));
    const auto deriv = per_axis<int>(ws, "window_size", i, axes);
    for (int d : deriv) {
      SLUICE_CHECK(3 <= d && d <= kMaxWindow && d % 2 == 1, InvalidArgument,
                   "Window size must be an odd integer between 3 and ", kMaxWindow, ", got ", d,
                   " for sample: ", i, ".");
    }
    std::vector<int> smooth = deriv;
    if (has_smoothing) {
      smooth = per_axis<int>(ws, "smoothing_size", i, axes);
      for (int s : smooth) {
        SLUICE_CHECK(1 <= s && s <= kMaxWindow && s % 2 == 1, InvalidArgument,
                     "Smoothing window size must be an odd integer between 1 and ", kMaxWindow,
                     ", got ", s, " for sample: ", i, ".");
      }
    }
    std::vector<std::vector<std::vector<float>>> w(axes);
    std::vector<float> scale =
        normalize ? std::vector<float>(axes) : per_axis<float>(ws, "scale", i, axes);
    for (int d = 0; d < axes; ++d) {
      int total = 0;
      for (int a = 0; a < axes; ++a) {
        // Without smoothing_size, the smoothing windows of derivative d have its size.
        const int size = a == d ? deriv[d] : has_smoothing ? smooth[a] : deriv[d];
        total += size;
        w[d].push_back(a == d ? kernels::conv::laplacian_derivative_window(size)
                              : kernels::conv::laplacian_smoothing_window(size));
      }
      if (normalize) scale[d] = std::exp2f(static_cast<float>(-(total - axes - 2)));
    }
    plan.windows.push_back(std::move(w));
    plan.scales.push_back(std::move(scale));
  }
  return plan;
}

std::vector<kernels::conv::AxisPass> laplacian_passes(const LaplacianPlan& plan, int i,
                                                      const void* in, void* out, float* acc,
                                                      void* const tmp[2],
                                                      const std::vector<const float*>& windows) {
  std::vector<kernels::conv::AxisPass> all;
  for (int d = 0; d < plan.axes; ++d) {
    const float* w[3] = {};
    int sizes[3] = {};
    for (int a = 0; a < plan.axes; ++a) {
      w[a] = windows[d * plan.axes + a];
      sizes[a] = static_cast<int>(plan.windows[i][d][a].size());
    }
    const bool last = d + 1 == plan.axes;
    auto p = kernels::conv::separable_passes(in, last ? out : acc, tmp, plan.shapes[i], w, sizes,
                                             plan.scales[i][d]);
    if (d > 0) p.back().add = acc;
    all.insert(all.end(), p.begin(), p.end());
  }
  return all;
}

namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("laplacian")
        .doc("Computes the Laplacian (the sum of the second derivatives over the spatial axes) "
             "with OpenCV's derivative and smoothing windows and a reflect-101 border.")
        .num_inputs(1, 1)
        .input_doc("input",
                   "Data with 1 to 3 spatial axes, optional leading F / C axes and a "
                   "trailing C (without a layout, every axis is spatial).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("window_size", ArgType::kIntList, std::vector<int64_t>{3},
             "Derivative window size (odd, 3 to 31), one for all axes or one per axis.", true)
        .optional_arg("smoothing_size", ArgType::kIntList,
                      "Smoothing window size (odd, 1 to 31), one for all axes or one per axis; by "
                      "default each derivative's smoothing windows have its window_size.",
                      true)
        .arg("scale", ArgType::kFloatList, std::vector<double>{1.0},
             "Factor of each axis' derivative, one for all axes or one per axis.", true)
        .arg("normalized_kernel", ArgType::kBool, false,
             "Scale each derivative by 2^-(sum of its window sizes - axes - 2); excludes scale.")
        .optional_arg("dtype", ArgType::kDType, "Output type: the input's (default) or FLOAT."));

class LaplacianCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const LaplacianPlan plan = plan_laplacian(ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), plan.out_type);
    out.set_layout(in.layout());
    ws.for_each_sample(
        [&](int i, int) {
          const int64_t v = plan.shapes[i].volume();
          std::vector<float> scratch(3 * v);  // the sum, then two intermediate images
          void* tmp[2] = {scratch.data() + v, scratch.data() + 2 * v};
          std::vector<const float*> windows;
          for (const auto& wd : plan.windows[i]) {
            for (const auto& w : wd) windows.push_back(w.data());
          }
          const auto passes = laplacian_passes(plan, i, in.raw_sample(i), out.raw_sample(i),
                                               scratch.data(), tmp, windows);
          // Each derivative: its first pass reads the input, its last writes the sum (the last
          // derivative: the output).
          const size_t per = static_cast<size_t>(plan.axes);
          for (size_t k = 0; k < passes.size(); ++k) {
            const bool first = k % per == 0, last = k % per == per - 1;
            const bool to_out = k + 1 == passes.size();
            kernels::conv::convolve_axis_cpu(passes[k], first ? plan.in_type : DType::kFloat32,
                                             last && to_out ? plan.out_type : DType::kFloat32);
          }
        },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("laplacian", OpDevice::kCPU, LaplacianCpu);

}  // namespace
}  // namespace sluice
