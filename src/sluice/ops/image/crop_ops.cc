// crop, flip and crop_mirror_normalize on the CPU: schemas and per-sample kernels.

#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/crop/crop_cpu.h"
#include "sluice/ops/generic/elementwise_util.h"
#include "sluice/ops/image/crop_args.h"

namespace sluice {
namespace {

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

SLUICE_REGISTER_SCHEMA(crop_window_args(OpSchema("crop"))
                           .doc("Cuts a window of size crop=(h, w) at (crop_pos_y, crop_pos_x) "
                                "out of each HWC or CHW image.")
                           .num_inputs(1, 1)
                           .input_doc("input", "Images (HWC or CHW).")
                           .devices({OpDevice::kCPU, OpDevice::kGPU}));

SLUICE_REGISTER_SCHEMA(OpSchema("flip")
                           .doc("Flips each image horizontally and/or vertically.")
                           .num_inputs(1, 1)
                           .input_doc("input", "Images (HWC or CHW).")
                           .devices({OpDevice::kCPU, OpDevice::kGPU})
                           .arg("horizontal", ArgType::kInt, int64_t{1}, "Flip left-right.", true)
                           .arg("vertical", ArgType::kInt, int64_t{0}, "Flip upside down.", true)
                           .arg("depthwise", ArgType::kInt, int64_t{0},
                                "Volumetric flip; only 0 is supported.", true));

SLUICE_REGISTER_SCHEMA(
    crop_window_args(OpSchema("crop_mirror_normalize"))
        .doc("Crops, mirrors, normalises ((x - mean) / std * scale + shift), changes the layout "
             "and casts in one pass over each image. Without `crop` the whole image is used.")
        .num_inputs(1, 1)
        .input_doc("input",
                   "HWC images (uint8 on the GPU; uint8, uint16, int16 or float on the CPU).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("mirror", ArgType::kInt, int64_t{0}, "Flip the image horizontally.", true)
        .arg("mean", ArgType::kFloatList, std::vector<double>{0.0}, "Mean per channel (or one).",
             true)
        .arg("std", ArgType::kFloatList, std::vector<double>{1.0},
             "Standard deviation per channel (or one).", true)
        .arg("scale", ArgType::kFloat, 1.0, "Multiplies the normalised value.")
        .arg("shift", ArgType::kFloat, 0.0, "Added after scaling.")
        .arg("dtype", ArgType::kDType, std::string("FLOAT"),
             "Output type: FLOAT, FLOAT16, UINT8 or INT8.")
        .enum_arg("output_layout", {"CHW", "HWC"}, "CHW", "Layout of the output.")
        .arg("pad_output", ArgType::kBool, false, "Pad the channels to 4 with zeros."));

class CropCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const int n = ws.batch_size();
    std::vector<ImageGeometry> geo(n);
    std::vector<CropWindow> win(n);
    std::vector<Shape> shapes(n);
    for (int i = 0; i < n; ++i) {
      geo[i] = image_geometry(in, i);
      auto w = fixed_window(ws, i, geo[i].height, geo[i].width);
      SLUICE_CHECK(w, InvalidArgument, "crop needs crop=(h, w) or crop_h and crop_w");
      win[i] = *w;
      shapes[i] = image_shape(w->h, w->w, geo[i].channels, geo[i].layout);
    }
    out.resize(shapes, in.dtype());
    out.set_layout(in.layout());
    auto fill = spec_.arg<std::vector<float>>("fill_values");
    crop_type_dispatch(in.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      ws.for_each_sample(
          [&](int i, int) {
            ImageGeometry og{win[i].h, win[i].w, geo[i].channels, geo[i].layout};
            crop_cpu<T>(image_view<const T>(in, i, geo[i]), image_view<T>(out, i, og), win[i],
                        fill);
          },
          inline_below(in));
    });
  }
};

class FlipCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), in.dtype());
    out.set_layout(in.layout());
    crop_type_dispatch(in.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      ws.for_each_sample(
          [&](int i, int) {
            SLUICE_CHECK(ws.arg<int>("depthwise", i) == 0, NotImplemented, "depthwise flip");
            ImageGeometry g = image_geometry(in, i);
            flip_cpu<T>(image_view<const T>(in, i, g), image_view<T>(out, i, g),
                        ws.arg<int>("horizontal", i) != 0, ws.arg<int>("vertical", i) != 0);
          },
          inline_below(in));
    });
  }
};

class CropMirrorNormalizeCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const int n = ws.batch_size();
    std::vector<ImageGeometry> geo(n);
    std::vector<CropWindow> win(n);
    std::vector<CmnChannelTable> tables(n);
    std::vector<Shape> shapes(n);
    for (int i = 0; i < n; ++i) {
      geo[i] = image_geometry(in, i);
      SLUICE_CHECK(geo[i].layout == ImageLayout::kHWC, InvalidArgument,
                   "crop_mirror_normalize takes HWC input, got layout '", in.layout(), "'");
      win[i] = fixed_window(ws, i, geo[i].height, geo[i].width)
                   .value_or(CropWindow{0, 0, geo[i].height, geo[i].width});
      tables[i] = cmn_table(ws, i, static_cast<int>(geo[i].channels));
      shapes[i] = cmn_output_shape(win[i], tables[i]);
    }
    out.resize(shapes, tables.empty() ? DType::kFloat32 : tables[0].out_type);
    out.set_layout(spec_.arg<std::string>("output_layout"));
    auto run_typed = [&](auto tag) {
      using In = typename decltype(tag)::type;
      ws.for_each_sample([&](int i, int) {
        crop_mirror_normalize_cpu<In>(image_view<const In>(in, i, geo[i]), out.raw_sample(i),
                                      win[i], ws.arg<int>("mirror", i) != 0, tables[i]);
      });
    };
    switch (in.dtype()) {
      case DType::kUInt8:
        run_typed(TypeTag<uint8_t>{});
        break;
      case DType::kUInt16:
        run_typed(TypeTag<uint16_t>{});
        break;
      case DType::kInt16:
        run_typed(TypeTag<int16_t>{});
        break;
      case DType::kFloat32:
        run_typed(TypeTag<float>{});
        break;
      default:
        throw InvalidArgument(
            make_string("crop_mirror_normalize takes UINT8, UINT16, INT16 or "
                        "FLOAT input, got ",
                        dtype_name(in.dtype())));
    }
  }
};

SLUICE_REGISTER_OPERATOR("crop", OpDevice::kCPU, CropCpu);
SLUICE_REGISTER_OPERATOR("flip", OpDevice::kCPU, FlipCpu);
SLUICE_REGISTER_OPERATOR("crop_mirror_normalize", OpDevice::kCPU, CropMirrorNormalizeCpu);

}  // namespace

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
