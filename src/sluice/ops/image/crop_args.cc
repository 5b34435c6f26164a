#include "sluice/ops/image/crop_args.h"

#include <cmath>

namespace sluice {

OpSchema crop_window_args(OpSchema s) {
  s.optional_arg("crop", ArgType::kFloatList, "Crop size (height, width).")
      .optional_arg("crop_h", ArgType::kFloat, "Crop height in pixels.", true)
      .optional_arg("crop_w", ArgType::kFloat, "Crop width in pixels.", true)
      .arg("crop_pos_x", ArgType::kFloat, 0.5, "Horizontal position of the crop in [0, 1].", true)
      .arg("crop_pos_y", ArgType::kFloat, 0.5, "Vertical position of the crop in [0, 1].", true)
      .enum_arg("out_of_bounds_policy", {"error", "pad", "trim_to_shape"}, "error",
                "What a window reaching outside the image does: raise, pad with fill_values, "
                "or shrink to the image.")
      .arg("fill_values", ArgType::kFloatList, std::vector<double>{0.0},
           "Padding values: one, or one per channel.");
  return s;
}

ImageGeometry image_geometry(const TensorList& t, int sample) {
  const Shape& s = t.shape(sample);
  SLUICE_CHECK(s.size() == 3, InvalidArgument,
               "expected images (3 dimensions: HWC or CHW), got shape ", shape_to_string(s));
  if (t.layout() == "CHW") return {s[1], s[2], s[0], ImageLayout::kCHW};
  SLUICE_CHECK(t.layout().empty() || t.layout() == "HWC", InvalidArgument,
               "expected layout HWC or CHW, got '", t.layout(), "'");
  return {s[0], s[1], s[2], ImageLayout::kHWC};
}

Shape image_shape(int64_t h, int64_t w, int64_t c, ImageLayout layout) {
  return layout == ImageLayout::kCHW ? Shape{c, h, w} : Shape{h, w, c};
}

std::optional<CropWindow> fixed_window(const Workspace& ws, int sample, int64_t height,
                                       int64_t width) {
  const OpSpec& spec = ws.spec();
  double ch = 0, cw = 0;
  if (spec.has_arg("crop")) {
    auto c = spec.arg<std::vector<double>>("crop");
    SLUICE_CHECK(c.size() == 2, InvalidArgument, "crop must be (height, width), got ", c.size(),
                 " values");
    ch = c[0];
    cw = c[1];
  } else if (spec.has_arg("crop_h") || ws.arg_input("crop_h") || spec.has_arg("crop_w") ||
             ws.arg_input("crop_w")) {
    ch = ws.arg<double>("crop_h", sample);
    cw = ws.arg<double>("crop_w", sample);
  } else {
    return std::nullopt;
  }
  SLUICE_CHECK(ch > 0 && cw > 0, InvalidArgument, "crop size must be positive, got (", ch, ", ", cw,
               ")");
  CropWindow w =
      fixed_crop_window(height, width, std::llround(ch), std::llround(cw),
                        ws.arg<float>("crop_pos_y", sample), ws.arg<float>("crop_pos_x", sample));
  return apply_out_of_bounds_policy(
      w, height, width, parse_out_of_bounds_policy(spec.arg<std::string>("out_of_bounds_policy")));
}

CmnChannelTable cmn_table(const Workspace& ws, int sample, int channels) {
  const OpSpec& spec = ws.spec();
  CmnParams p;
  p.out_type = parse_dtype(spec.arg<std::string>("dtype"));
  p.out_layout = parse_image_layout(spec.arg<std::string>("output_layout"));
  p.pad_output = spec.arg<bool>("pad_output");
  p.mean = ws.arg_list<float>("mean", sample);
  p.stddev = ws.arg_list<float>("std", sample);
  p.scale = spec.arg<float>("scale");
  p.shift = spec.arg<float>("shift");
  p.fill_values = spec.arg<std::vector<float>>("fill_values");
  return make_cmn_channel_table(p, channels);
}

}  // namespace sluice
