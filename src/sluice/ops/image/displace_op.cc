#include "sluice/ops/image/displace_op.h"

#include "sluice/kernels/erase/erase.h"

namespace sluice {

OpSchema displace_args(OpSchema s) {
  return s.num_inputs(1, 1)
      .input_doc("input", "HWC images (UINT8 or FLOAT).")
      .enum_arg("interp_type",
                {"INTERP_NN", "INTERP_LINEAR", "INTERP_CUBIC", "INTERP_LANCZOS3",
                 "INTERP_TRIANGULAR", "INTERP_GAUSSIAN"},
                "INTERP_NN", "Interpolation: INTERP_NN or INTERP_LINEAR.")
      .arg("fill_value", ArgType::kFloat, 0.0, "The value of pixels taken from outside the image.")
      .arg("mask", ArgType::kInt, int64_t{1},
           "Per-sample input: 0 leaves the sample unchanged. As in DALI, a constant is ignored.",
           true);
}

kernels::DisplaceParams displace_params(const OpSpec& spec, const TensorList& in,
                                        kernels::DisplaceKind kind) {
  const std::string interp = spec.arg<std::string>("interp_type");
  SLUICE_CHECK(interp == "INTERP_NN" || interp == "INTERP_LINEAR", InvalidArgument,
               "unsupported interpolation type ", interp,
               "; only INTERP_NN and INTERP_LINEAR are supported for this operation");
  SLUICE_CHECK(in.dtype() == DType::kUInt8 || in.dtype() == DType::kFloat32, InvalidArgument,
               "unexpected input type ", dtype_name(in.dtype()), "; use UINT8 or FLOAT");
  SLUICE_CHECK(in.layout().empty() || in.layout() == "HWC", InvalidArgument, "the layout '",
               in.layout(), "' does not match the allowed layout HWC");
  SLUICE_CHECK(in.num_samples() == 0 || in.sample_ndim() == 3, InvalidArgument,
               "expects 3-dimensional HWC images, got ", in.sample_ndim(), " dimensions");
  return {kind, interp == "INTERP_LINEAR", in.dtype() == DType::kFloat32};
}

kernels::DisplaceSample displace_sample(const Workspace& ws, const TensorList& in, TensorList& out,
                                        int i, kernels::DisplaceKind kind) {
  const OpSpec& spec = ws.spec();
  const Shape& sh = in.shape(i);
  kernels::DisplaceSample s{};
  s.out = out.raw_sample(i);
  s.in = in.raw_sample(i);
  s.height = sh[0];
  s.width = sh[1];
  s.channels = sh[2];
  s.apply = ws.arg_input("mask") == nullptr || ws.arg<int>("mask", i) != 0;
  const float fill = spec.arg<float>("fill_value");
  // DALI converts the fill value to the element type as a C++ cast does.
  s.fill = in.dtype() == DType::kUInt8
               ? static_cast<float>(static_cast<uint8_t>(kernels::erase_fill_bits<uint8_t>(fill)))
               : fill;
  if (kind == kernels::DisplaceKind::kWater) {
    s.ampl_x = spec.arg<float>("ampl_x");
    s.freq_x = spec.arg<float>("freq_x");
    s.phase_x = spec.arg<float>("phase_x");
    s.ampl_y = spec.arg<float>("ampl_y");
    s.freq_y = spec.arg<float>("freq_y");
    s.phase_y = spec.arg<float>("phase_y");
  } else if (kind == kernels::DisplaceKind::kJitter) {
    s.n_degree = spec.arg<int>("nDegree");
    SLUICE_CHECK(s.n_degree > 0, InvalidArgument, "`nDegree` must be positive, got ", s.n_degree);
    SampleRng rng = ws.rng(i);
    s.key = {rng.next_u32(), rng.next_u32()};
  }
  return s;
}

}  // namespace sluice
