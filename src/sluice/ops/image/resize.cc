// resize: separable resampling of HWC images, Pillow-exact on uint8. Its classes also serve
// random_resized_crop (random_resized_crop.cc), which resizes a random window of each image, and
// resize_crop_mirror (resize_crop_mirror.cc), which resizes straight into a crop window; the GPU
// class is in resize_gpu.cc.

#include <cmath>

#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/crop/random_crop_window.h"
#include "sluice/kernels/resize/resize_cpu.h"
#include "sluice/ops/image/resize.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(filter_args(resize_size_args(
    OpSchema("resize")
        .doc("Resizes HWC images with separable resampling. Output size from resize_x / "
             "resize_y, size, resize_shorter or resize_longer, with `mode` (default, stretch, "
             "not_smaller, not_larger) and max_size; roi_start / roi_end select a source window "
             "(reversed to mirror). uint8 results equal Pillow's Image.resize for the same "
             "filters (NN, LINEAR=BILINEAR, CUBIC=BICUBIC, LANCZOS3=LANCZOS).")
        .num_inputs(1, 1)
        .input_doc("input", "HWC images.")
        .devices({OpDevice::kCPU, OpDevice::kGPU}))));

std::optional<float> opt_float(const Workspace& ws, std::string_view name, int sample) {
  if (!ws.spec().has_arg(name) && !ws.arg_input(name)) return std::nullopt;
  return ws.arg<float>(name, sample);
}

std::optional<std::array<float, 2>> opt_pair(const Workspace& ws, std::string_view name,
                                             int sample) {
  if (!ws.spec().has_arg(name) && !ws.arg_input(name)) return std::nullopt;
  auto v = ws.arg_list<float>(name, sample);
  SLUICE_CHECK(v.size() == 2, InvalidArgument, "'", name,
               "' takes two values (height, width), got ", v.size());
  return std::array<float, 2>{v[0], v[1]};
}

}  // namespace

// Static initialisers of other files call it (resize_crop_mirror's schema), as filter_args.
OpSchema resize_size_args(OpSchema s) {
  s.optional_arg("resize_x", ArgType::kFloat, "Output width (0: keep the aspect ratio).", true)
      .optional_arg("resize_y", ArgType::kFloat, "Output height (0: keep the aspect ratio).", true)
      .optional_arg("size", ArgType::kFloatList,
                    "Output size (height, width); 0 derives an extent.", true)
      .optional_arg("resize_shorter", ArgType::kFloat,
                    "Length of the shorter side, keeping the aspect ratio.", true)
      .optional_arg("resize_longer", ArgType::kFloat,
                    "Length of the longer side, keeping the aspect ratio.", true)
      .enum_arg("mode", {"default", "stretch", "not_smaller", "not_larger"}, "default",
                "How given extents combine.")
      .optional_arg("max_size", ArgType::kFloatList, "Upper limit of the output (height, width).")
      .optional_arg("roi_start", ArgType::kFloatList, "Source window start (y, x).", true)
      .optional_arg("roi_end", ArgType::kFloatList, "Source window end (y, x).", true)
      .arg("roi_relative", ArgType::kBool, false, "roi_start / roi_end are fractions of the size.")
      .arg("subpixel_scale", ArgType::kBool, true,
           "Keep the exact scale when rounding the output size (source window adjusted).");
  return s;
}

// Static initialisers of other files call it (random_resized_crop's schema): no namespace-scope
// objects with dynamic initialisation here.
OpSchema filter_args(OpSchema s) {
  s.enum_arg("interp_type",
             {"INTERP_NN", "INTERP_LINEAR", "INTERP_CUBIC", "INTERP_LANCZOS3", "INTERP_TRIANGULAR",
              "INTERP_GAUSSIAN"},
             "INTERP_LINEAR", "Interpolation filter.")
      .optional_arg("min_filter", ArgType::kString,
                    "Filter for downscaled axes, an interp_type name (default: interp_type).")
      .optional_arg("mag_filter", ArgType::kString,
                    "Filter for upscaled axes, an interp_type name (default: interp_type).")
      .arg("antialias", ArgType::kBool, true,
           "Widen the filter when downscaling (as Pillow does), avoiding aliasing.")
      .optional_arg("dtype", ArgType::kDType, "Output type (UINT8 or FLOAT; default: the input's).")
      .arg("minibatch_size", ArgType::kInt, int64_t{32}, "Accepted for compatibility.")
      .arg("temp_buffer_hint", ArgType::kInt, int64_t{0}, "Accepted for compatibility.");
  return s;
}

void ResizeCpu::setup(const OpContext& ctx) {
  filters_ = resize_filters(spec_);
  scratch_.resize(ctx.num_slots);
}

void ResizeCpu::run(Workspace& ws) {
  const TensorList& in = ws.input(0);
  TensorList& out = ws.output(0);
  const int n = ws.batch_size();
  const DType out_type = resize_output_type(spec_, in.dtype());
  std::vector<kernels::ResizeSampleParams> params(n);
  std::vector<CropWindow> windows(n);
  std::vector<Shape> shapes(n);
  std::vector<double> cost(n);  // pixels read and written
  for (int i = 0; i < n; ++i) {
    const Shape& s = in.shape(i);
    SLUICE_CHECK(s.size() == 3 && (in.layout().empty() || in.layout() == "HWC"), InvalidArgument,
                 "resize takes HWC images, got shape ", shape_to_string(s), " with layout '",
                 in.layout(), "'");
    ResizePlan plan = resize_plan(ws, i, s[0], s[1]);
    windows[i] = plan.input;
    params[i] = {plan.geometry, filters_};
    shapes[i] = {plan.geometry.out_h, plan.geometry.out_w, s[2]};
    cost[i] = static_cast<double>(plan.input.h * plan.input.w + shapes[i][0] * shapes[i][1]);
  }
  out.resize(shapes, out_type);
  out.set_layout("HWC");
  ws.for_each_sample(
      [&](int i, int thread) {
        const Shape& s = in.shape(i);
        const CropWindow& w = windows[i];
        const auto* base = static_cast<const char*>(in.raw_sample(i)) +
                           (w.y * s[1] + w.x) * s[2] * static_cast<int64_t>(dtype_size(in.dtype()));
        kernels::ConstHwcImage src(base, in.dtype(), w.h, w.w, s[2], s[1] * s[2]);
        kernels::HwcImage dst{out.raw_sample(i), out_type, shapes[i][0], shapes[i][1], s[2]};
        auto& scratch = scratch_[thread];
        size_t need = kernels::resize_cpu_scratch_size(src, dst, params[i]);
        if (scratch.size() < need) scratch.resize(need);
        kernels::resize_cpu(src, dst, params[i], scratch);
      },
      1, cost);
}

kernels::ResampleFilters resize_filters(const OpSpec& spec) {
  kernels::ResampleFilters f;
  auto interp = kernels::parse_resample_filter(spec.arg<std::string>("interp_type"));
  f.min_filter = spec.has_arg("min_filter")
                     ? kernels::parse_resample_filter(spec.arg<std::string>("min_filter"))
                     : interp;
  f.mag_filter = spec.has_arg("mag_filter")
                     ? kernels::parse_resample_filter(spec.arg<std::string>("mag_filter"))
                     : interp;
  f.antialias = spec.arg<bool>("antialias");
  return f;
}

DType resize_output_type(const OpSpec& spec, DType input) {
  DType t = spec.has_arg("dtype") ? parse_dtype(spec.arg<std::string>("dtype")) : input;
  SLUICE_CHECK(t == DType::kUInt8 || t == DType::kFloat32, InvalidArgument,
               "resize output type must be UINT8 or FLOAT, got ", dtype_name(t));
  return t;
}

ResizePlan resize_plan(const Workspace& ws, int sample, int64_t in_h, int64_t in_w) {
  const OpSpec& spec = ws.spec();
  if (spec.type == "random_resized_crop") {
    auto size = spec.arg<std::vector<double>>("size");
    auto area = spec.arg<std::vector<double>>("random_area");
    auto ratio = spec.arg<std::vector<double>>("random_aspect_ratio");
    SLUICE_CHECK(size.size() == 2 && size[0] >= 1 && size[1] >= 1, InvalidArgument,
                 "size must be (height, width) >= 1");
    SLUICE_CHECK(area.size() == 2 && ratio.size() == 2, InvalidArgument,
                 "random_area and random_aspect_ratio take two values");
    RandomResizedCropParams p{area[0], area[1], ratio[0], ratio[1], spec.arg<int>("num_attempts")};
    p.validate();
    SampleRng rng = ws.rng(sample);
    CropWindow w = random_resized_crop_window(in_h, in_w, p, rng);
    return {w,
            {std::llround(size[0]), std::llround(size[1]), 0.0, 0.0, static_cast<double>(w.h),
             static_cast<double>(w.w)}};
  }
  kernels::ResizeArgs a;
  a.resize_x = opt_float(ws, "resize_x", sample);
  a.resize_y = opt_float(ws, "resize_y", sample);
  a.size = opt_pair(ws, "size", sample);
  a.resize_shorter = opt_float(ws, "resize_shorter", sample);
  a.resize_longer = opt_float(ws, "resize_longer", sample);
  if (spec.has_arg("mode")) a.mode = kernels::parse_resize_mode(spec.arg<std::string>("mode"));
  a.max_size = opt_pair(ws, "max_size", sample);
  a.roi_start = opt_pair(ws, "roi_start", sample);
  a.roi_end = opt_pair(ws, "roi_end", sample);
  a.roi_relative = spec.arg<bool>("roi_relative");
  a.subpixel_scale = spec.arg<bool>("subpixel_scale");
  ResizePlan plan{{0, 0, in_h, in_w}, kernels::compute_resize_geometry(in_h, in_w, a)};
  if (spec.type == "resize_crop_mirror") crop_and_mirror(ws, sample, plan.geometry);
  return plan;
}

SLUICE_REGISTER_OPERATOR("resize", OpDevice::kCPU, ResizeCpu);

}  // namespace sluice
