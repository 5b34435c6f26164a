#include "sluice/ops/noise/noise_op.h"

#include <cmath>
#include <limits>

#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

bool supported(DType t) {
  return t == DType::kFloat32 || (dtype_is_integral(t) && t != DType::kBool);
}

// A salt or pepper value as DALI stores it in the element type: floats as they are, integers
// truncated and wrapped (C++'s conversion of an in-range value).
double in_type(double v, DType t) {
  if (t == DType::kFloat32) return static_cast<float>(v);
  uint64_t bits = 0;
  kernels::store_wrap(&bits, t, 0, static_cast<int64_t>(v));
  return kernels::load_f64(&bits, t, 0);
}

// Salt and pepper without per_channel: one draw per pixel, for all its channels ('C' first or
// last in the layout; last when there is no layout).
void pixel_groups(const TensorList& in, int i, kernels::NoiseSample& s) {
  const Shape& shape = in.shape(i);
  const std::string layout = in.layout();
  const int ndim = static_cast<int>(shape.size());
  int c = layout.empty() ? ndim - 1 : static_cast<int>(layout.find('C'));
  SLUICE_CHECK(layout.empty() || (c == 0 || c == ndim - 1), InvalidArgument,
               "'C' should be the first or the last dimension in the layout, except for empty "
               "layouts where channel-last is assumed. Got layout: \"",
               layout, "\".");
  const int64_t channels = ndim ? std::max<int64_t>(shape[c], 1) : 1;
  const int64_t pixels = std::max<int64_t>(s.n / channels, 1);
  if (c == ndim - 1 || ndim == 0) {
    s.group_div = channels, s.group_mod = pixels;
  } else {
    s.group_div = 1, s.group_mod = pixels;
  }
}

}  // namespace

kernels::NoiseKind plan_noise(const OpSpec& spec, Workspace& ws,
                              std::vector<kernels::NoiseSample>& samples) {
  const TensorList& in = ws.input(0);
  SLUICE_CHECK(supported(in.dtype()), InvalidArgument, "Data type ", dtype_name(in.dtype()),
               " is currently not supported. Supported types are : uint8, int8, uint16, int16, "
               "uint32, int32, uint64, int64, float");
  TensorList& out = ws.output(0);
  out.resize(in.shapes(), in.dtype());
  out.set_layout(in.layout());
  const int n = ws.batch_size();
  samples.clear();
  samples.reserve(n);
  kernels::NoiseKind kind = kernels::NoiseKind::kGaussian;
  if (spec.type == "noise.salt_and_pepper") {
    kind = kernels::NoiseKind::kSaltAndPepper;
  } else if (spec.type == "noise.shot") {
    kind = kernels::NoiseKind::kShot;
  }
  const bool per_channel =
      kind == kernels::NoiseKind::kSaltAndPepper && spec.arg<bool>("per_channel");
  const double inf = std::numeric_limits<double>::infinity();
  const bool is_float = in.dtype() == DType::kFloat32;
  for (int i = 0; i < n; ++i) {
    kernels::NoiseSample& s = samples.emplace_back(kernels::NoiseSample{
        in.raw_sample(i), out.raw_sample(i), volume(in.shape(i)), ws.rng(i), 0, 0, 0, 0});
    switch (kind) {
      case kernels::NoiseKind::kGaussian:
        s.p0 = ws.arg<float>("mean", i);
        s.p1 = ws.arg<float>("stddev", i);
        break;
      case kernels::NoiseKind::kSaltAndPepper: {
        const float prob = ws.arg<float>("prob", i), svp = ws.arg<float>("salt_vs_pepper", i);
        SLUICE_CHECK(prob >= 0 && prob <= 1, InvalidArgument,
                     "Noise probability should be a value within [0.0, 1.0]. Got: ", prob);
        SLUICE_CHECK(svp >= 0 && svp <= 1, InvalidArgument,
                     "Salt-vs-pepper probability should be a value within [0.0, 1.0]. Got: ", svp);
        s.p0 = prob;
        s.p1 = prob * svp;
        const bool has_salt = spec.has_arg("salt_val") || ws.arg_input("salt_val");
        const bool has_pepper = spec.has_arg("pepper_val") || ws.arg_input("pepper_val");
        s.salt = has_salt ? in_type(ws.arg<float>("salt_val", i), in.dtype()) : is_float ? 1 : inf;
        s.pepper = has_pepper ? in_type(ws.arg<float>("pepper_val", i), in.dtype())
                   : is_float ? -1
                              : -inf;
        s.group_div = 1, s.group_mod = std::max<int64_t>(s.n, 1);
        if (!per_channel) pixel_groups(in, i, s);
        break;
      }
      case kernels::NoiseKind::kShot:
        s.p0 = ws.arg<float>("factor", i);
        break;
    }
  }
  return kind;
}

void NoiseCpu::run(Workspace& ws) {
  std::vector<kernels::NoiseSample> samples;
  const kernels::NoiseKind kind = plan_noise(spec_, ws, samples);
  const DType t = ws.input(0).dtype();
  ws.for_each_sample([&](int i, int) { kernels::noise_cpu(kind, samples[i], t); },
                     inline_below(ws.input(0)));
}

}  // namespace sluice
