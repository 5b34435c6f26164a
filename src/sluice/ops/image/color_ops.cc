// The colour operators' shared argument reading and CPU class (color_ops.h).

#include "sluice/ops/image/color_ops.h"

#include <cmath>
#include <limits>
#include <string>

#include "sluice/kernels/color/color_cpu.h"
#include "sluice/kernels/color/color_matrix.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

using kernels::color::ColorOp;
using kernels::color::ColorSample;

std::string layout_list(std::initializer_list<const char*> allowed) {
  std::string s;
  for (const char* a : allowed) s += make_string(s.empty() ? "" : ", ", a);
  return s;
}

// brightness_contrast's grey level of the input type and full range of the output type.
float half_range(DType t) {
  switch (t) {
    case DType::kUInt8:
      return 128.0f;
    case DType::kInt16:
      return 16384.0f;
    case DType::kInt32:
      return 1073741824.0f;
    default:
      return 0.5f;
  }
}

float full_range(DType t) {
  switch (t) {
    case DType::kUInt8:
      return 255.0f;
    case DType::kInt16:
      return 32767.0f;
    case DType::kInt32:
      return static_cast<float>(std::numeric_limits<int32_t>::max());
    default:
      return 1.0f;
  }
}

DType output_type(const OpSpec& spec, DType input) {
  const ArgSpec* a = spec.schema->find_arg("dtype");
  return spec.has_arg("dtype") || a->default_value ? parse_dtype(spec.arg<std::string>("dtype"))
                                                   : input;
}

ColorOp conversion(const std::string& from, const std::string& to) {
  const std::string key = from + ">" + to;
  if (key == "RGB>BGR" || key == "BGR>RGB") return ColorOp::kSwapRB;
  if (key == "RGB>GRAY") return ColorOp::kRgbToGray;
  if (key == "BGR>GRAY") return ColorOp::kBgrToGray;
  if (key == "GRAY>RGB" || key == "GRAY>BGR") return ColorOp::kGrayToRgb;
  if (key == "RGB>YCbCr") return ColorOp::kRgbToYCbCr;
  if (key == "BGR>YCbCr") return ColorOp::kBgrToYCbCr;
  if (key == "YCbCr>RGB") return ColorOp::kYCbCrToRgb;
  if (key == "YCbCr>BGR") return ColorOp::kYCbCrToBgr;
  if (key == "GRAY>YCbCr") return ColorOp::kGrayToYCbCr;
  if (key == "YCbCr>GRAY") return ColorOp::kYCbCrToGray;
  throw InvalidArgument(make_string("conversion not supported: ", from, " to ", to));
}

void plan_conversion(const Workspace& ws, const TensorList& in, ColorPlan& plan) {
  const OpSpec& spec = ws.spec();
  check_input_layout(in, {"FDHWC", "FHWC", "DHWC", "HWC"});
  SLUICE_CHECK(in.dtype() == DType::kUInt8, InvalidArgument,
               "color_space_conversion takes UINT8 input, got ", dtype_name(in.dtype()));
  const std::string from = spec.arg<std::string>("image_type");
  const std::string to = spec.arg<std::string>("output_type");
  SLUICE_CHECK(from != "ANY_DATA" && to != "ANY_DATA", InvalidArgument,
               "color_space_conversion does not take ANY_DATA");
  plan.op = conversion(from, to);
  plan.in_type = plan.out_type = DType::kUInt8;
  const int ic = kernels::color::in_channels(plan.op), oc = kernels::color::out_channels(plan.op);
  for (int i = 0; i < in.num_samples(); ++i) {
    Shape s = in.shape(i);
    SLUICE_CHECK(s.back() == ic, InvalidArgument, "sample ", i, ": ", from, " input has ", ic,
                 " channels, got ", s.back());
    plan.samples[i].pixels = volume(s) / ic;
    s.back() = oc;
    plan.out_shapes[i] = s;
  }
}

}  // namespace

void check_input_layout(const TensorList& in, std::initializer_list<const char*> allowed) {
  if (in.num_samples() == 0) return;
  const Layout& layout = in.layout();
  for (const char* a : allowed) {
    if (layout.empty() ? std::string(a).size() == static_cast<size_t>(in.sample_ndim())
                       : layout == a) {
      return;
    }
  }
  if (layout.empty()) {
    throw InvalidArgument(make_string("The number of dimensions ", in.sample_ndim(),
                                      " does not match any of the allowed layouts for input 0. "
                                      "Valid layouts are: ",
                                      layout_list(allowed)));
  }
  throw InvalidArgument(make_string("The layout \"", layout,
                                    "\" does not match any of the allowed layouts for input 0. "
                                    "Valid layouts are: ",
                                    layout_list(allowed)));
}

ColorPlan plan_color(const Workspace& ws) {
  const OpSpec& spec = ws.spec();
  const std::string& name = spec.type;
  const TensorList& in = ws.input(0);
  const int n = in.num_samples();
  ColorPlan plan;
  plan.samples.resize(n);
  plan.out_shapes.resize(n);
  if (name == "color_space_conversion") {
    plan_conversion(ws, in, plan);
    return plan;
  }
  const bool bc = name == "brightness_contrast" || name == "brightness" || name == "contrast";
  plan.in_type = in.dtype();
  plan.out_type = output_type(spec, in.dtype());
  if (bc) {
    check_input_layout(in, {"FHWC", "DHWC", "HWC"});
    auto ok = [](DType t) {
      return t == DType::kUInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kFloat32;
    };
    SLUICE_CHECK(ok(plan.in_type), InvalidArgument,
                 "Unsupported input type: ", dtype_name(plan.in_type));
    SLUICE_CHECK(ok(plan.out_type), InvalidArgument,
                 "Unsupported output type: ", dtype_name(plan.out_type));
    plan.op = ColorOp::kMultiplyAdd;
  } else {
    check_input_layout(in, {"HWC", "FHWC", "DHWC"});
    SLUICE_CHECK(kernels::color::affine_type_supported(plan.in_type), InvalidArgument,
                 "Unsupported input type: ", dtype_name(plan.in_type));
    SLUICE_CHECK(kernels::color::affine_type_supported(plan.out_type), InvalidArgument,
                 "Unsupported output type: ", dtype_name(plan.out_type));
    plan.op = ColorOp::kMatrix3;
  }
  const bool has_center = spec.has_arg("contrast_center") || ws.arg_input("contrast_center");
  const float grey =
      plan.in_type == DType::kFloat16 || plan.in_type == DType::kFloat32 ? 0.5f : 128.0f;
  for (int i = 0; i < n; ++i) {
    plan.out_shapes[i] = in.shape(i);
    ColorSample& s = plan.samples[i];
    const int64_t elements = volume(in.shape(i));
    auto arg = [&](const char* a, float dflt) {
      return spec.schema->find_arg(a) ? ws.arg<float>(a, i) : dflt;
    };
    if (bc) {
      s.pixels = elements;
      const float center =
          has_center ? ws.arg<float>("contrast_center", i) : half_range(plan.in_type);
      kernels::color::set_brightness_contrast(s, arg("brightness", 1.0f),
                                              arg("brightness_shift", 0.0f), arg("contrast", 1.0f),
                                              center, full_range(plan.out_type));
      continue;
    }
    SLUICE_CHECK(in.shape(i).back() == 3, InvalidArgument, name,
                 " takes 3-channel (RGB) images; sample ", i, " has ", in.shape(i).back(),
                 " channels");
    s.pixels = elements / 3;
    if (name == "hsv") {
      kernels::color::set_hsv(s, arg("hue", 0.0f), arg("saturation", 1.0f), arg("value", 1.0f));
    } else {
      kernels::color::set_color_twist(s, arg("hue", 0.0f), arg("saturation", 1.0f),
                                      arg("brightness", 1.0f), arg("contrast", 1.0f), grey);
    }
  }
  return plan;
}

void ColorCpu::run(Workspace& ws) {
  const ColorPlan plan = plan_color(ws);
  const TensorList& in = ws.input(0);
  TensorList& out = ws.output(0);
  out.resize(plan.out_shapes, plan.out_type);
  out.set_layout(in.layout());
  ws.for_each_sample(
      [&](int i, int) {
        kernels::color::ColorSample s = plan.samples[i];
        s.in = in.raw_sample(i);
        s.out = out.raw_sample(i);
        kernels::color::color_cpu(s, plan.op, plan.in_type, plan.out_type);
      },
      inline_below(in));
}

}  // namespace sluice
