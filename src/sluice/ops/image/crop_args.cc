#include "sluice/ops/image/crop_args.h"

#include <cmath>

namespace sluice {

OpSchema crop_window_args(OpSchema s) {
  s.optional_arg("crop", ArgType::kFloatList,
                 "Crop size (height, width), or (depth, height, width): the last two are used. "
                 "An extent of 0 or less (after truncation to an integer) keeps the whole "
                 "extent.",
                 true)
      .optional_arg("crop_h", ArgType::kFloat,
                    "Crop height in pixels (truncated; 0 or less: the whole height).", true)
      .optional_arg("crop_w", ArgType::kFloat,
                    "Crop width in pixels (truncated; 0 or less: the whole width).", true)
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

namespace {

// A crop extent as DALI reads it: truncated toward zero; 0 or less keeps the whole extent.
int64_t crop_extent(double v, const char* name) {
  SLUICE_CHECK(std::isfinite(v) && std::fabs(v) < 0x1p62, InvalidArgument, name,
               " must be finite, got ", v);
  return static_cast<int64_t>(v);
}

}  // namespace

std::optional<CropWindow> requested_window(const Workspace& ws, int sample, int64_t height,
                                           int64_t width) {
  const OpSpec& spec = ws.spec();
  auto given = [&](const char* name) { return spec.has_arg(name) || ws.arg_input(name); };
  const bool has_crop = given("crop"), has_h = given("crop_h"), has_w = given("crop_w");
  SLUICE_CHECK(has_h == has_w, InvalidArgument,
               "`crop_w` and `crop_h` arguments must be provided together");
  int64_t ch = 0, cw = 0;
  if (has_crop) {
    SLUICE_CHECK(!has_h, InvalidArgument,
                 "`crop` argument is not compatible with `crop_h`, `crop_w`, `crop_d`");
    auto c = ws.arg_list<double>("crop", sample);
    SLUICE_CHECK(c.size() == 2 || c.size() == 3, InvalidArgument, "`crop` argument should have ",
                 "2 or 3 elements depending on the input data shape, got ", c.size(),
                 " for sample ", sample);
    ch = crop_extent(c[c.size() - 2], "crop");
    cw = crop_extent(c[c.size() - 1], "crop");
  } else if (has_h) {
    ch = crop_extent(ws.arg<double>("crop_h", sample), "crop_h");
    cw = crop_extent(ws.arg<double>("crop_w", sample), "crop_w");
  } else {
    return std::nullopt;
  }
  return fixed_crop_window(height, width, ch, cw, ws.arg<float>("crop_pos_y", sample),
                           ws.arg<float>("crop_pos_x", sample));
}

std::optional<CropWindow> fixed_window(const Workspace& ws, int sample, int64_t height,
                                       int64_t width) {
  std::optional<CropWindow> w = requested_window(ws, sample, height, width);
  if (!w) return w;
  return apply_out_of_bounds_policy(
      *w, height, width,
      parse_out_of_bounds_policy(ws.spec().arg<std::string>("out_of_bounds_policy")));
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
  // As DALI, fill_values only count under the "pad" policy (they also fill pad_output's
  // channels then); otherwise those channels are 0.
  if (parse_out_of_bounds_policy(spec.arg<std::string>("out_of_bounds_policy")) ==
      OutOfBoundsPolicy::kPad) {
    p.fill_values = spec.arg<std::vector<float>>("fill_values");
  }
  return make_cmn_channel_table(p, channels);
}

}  // namespace sluice
