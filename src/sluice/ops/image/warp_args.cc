#include "sluice/ops/image/warp_args.h"

#include <cmath>

#include "sluice/ops/op_policy.h"

namespace sluice {

OpSchema warp_args(OpSchema s) {
  s.enum_arg("interp_type",
             {"INTERP_NN", "INTERP_LINEAR", "INTERP_CUBIC", "INTERP_LANCZOS3", "INTERP_TRIANGULAR",
              "INTERP_GAUSSIAN"},
             "INTERP_LINEAR", "Interpolation: INTERP_NN or INTERP_LINEAR.")
      .optional_arg("fill_value", ArgType::kFloat,
                    "Value of output pixels whose source lies outside the image; without it the "
                    "source coordinates are clamped (the border pixels repeat).")
      .optional_arg("dtype", ArgType::kDType,
                    "Output type (default: the input's); FLOAT, or the input's when it is FLOAT.")
      .optional_arg("size", ArgType::kFloatList,
                    "Output size (height, width), rounded to integers; channels excluded.", true);
  return s;
}

std::array<int64_t, 3> warp_input_extents(const TensorList& in, int sample) {
  const Shape& s = in.shape(sample);
  SLUICE_CHECK(s.size() == 3 && (in.layout().empty() || in.layout() == "HWC"), NotImplemented,
               "warping takes HWC images (volumes are not supported), got shape ",
               shape_to_string(s), " with layout '", in.layout(), "'");
  return {s[0], s[1], s[2]};
}

std::optional<std::array<int64_t, 2>> warp_explicit_size(const Workspace& ws, int sample) {
  if (!ws.spec().has_arg("size") && !ws.arg_input("size")) return std::nullopt;
  auto v = ws.arg_list<float>("size", sample);
  if (v.empty()) return std::nullopt;  // DALI's default, []
  SLUICE_CHECK(v.size() == 2, InvalidArgument,
               "output_size must specify same number of dimensions as the input (excluding "
               "channels)");
  std::array<int64_t, 2> out{};
  for (int d = 0; d < 2; ++d) {
    SLUICE_CHECK(v[d] > 0, InvalidArgument, "Output size must be positive");
    out[d] = std::max<int64_t>(std::lround(v[d]), 1);
  }
  return out;
}

kernels::WarpSample warp_sample_base(const OpSpec& spec) {
  kernels::WarpSample s;
  const std::string interp = spec.arg<std::string>("interp_type");
  SLUICE_CHECK(interp == "INTERP_NN" || interp == "INTERP_LINEAR", InvalidArgument,
               "Only nearest and linear interpolation is supported");
  s.linear = interp == "INTERP_LINEAR";
  s.clamp = !spec.has_arg("fill_value");
  s.fill = s.clamp ? 0.0f : spec.arg<float>("fill_value");
  return s;
}

DType warp_output_type(const OpSpec& spec, DType input) {
  return spec.has_arg("dtype") ? parse_dtype(spec.arg<std::string>("dtype")) : input;
}

namespace {

// Descriptors with the input extents and the common arguments; then the operator's plan.
std::vector<kernels::WarpSample> plan_batch(
    const Workspace& ws, const TensorList& in,
    const std::function<void(std::vector<kernels::WarpSample>&)>& plan) {
  const int n = in.num_samples();
  std::vector<kernels::WarpSample> plans(n, warp_sample_base(ws.spec()));
  for (int i = 0; i < n; ++i) {
    auto [h, w, c] = warp_input_extents(in, i);
    plans[i].in_h = h;
    plans[i].in_w = w;
    plans[i].channels = static_cast<int>(c);
  }
  plan(plans);
  return plans;
}

}  // namespace

std::vector<kernels::WarpSample> warp_batch(
    const Workspace& ws, TensorList& out,
    const std::function<void(std::vector<kernels::WarpSample>&)>& plan) {
  const TensorList& in = ws.input(0);
  std::vector<kernels::WarpSample> plans = plan_batch(ws, in, plan);
  const DType out_type = warp_output_type(ws.spec(), in.dtype());
  // Refuses unsupported type pairs before allocating.
  kernels::warp_type_dispatch(in.dtype(), out_type, [](auto, auto) {});
  std::vector<Shape> shapes(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    shapes[i] = {plans[i].out_h, plans[i].out_w, plans[i].channels};
  }
  out.resize(shapes, out_type);
  out.set_layout(in.layout().empty() ? Layout("HWC") : in.layout());
  for (size_t i = 0; i < plans.size(); ++i) {
    plans[i].in = in.raw_sample(static_cast<int>(i));
    plans[i].out = out.raw_sample(static_cast<int>(i));
  }
  return plans;
}

void WarpOpCpu::run(Workspace& ws) {
  TensorList& out = ws.output(0);
  auto plans = warp_batch(ws, out, [&](auto& p) { plan(ws, p); });
  const TensorList& in = ws.input(0);
  std::vector<double> cost(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    cost[i] = static_cast<double>(plans[i].out_h * plans[i].out_w * plans[i].channels);
  }
  ws.for_each_sample([&](int i, int) { kernels::warp_cpu(plans[i], in.dtype(), out.dtype()); }, 1,
                     cost);
}

}  // namespace sluice
