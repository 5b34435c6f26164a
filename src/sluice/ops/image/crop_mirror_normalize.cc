// crop_mirror_normalize: crop, mirror, normalise, change the layout and cast in one pass over
// each image. The GPU class is in crop_mirror_normalize_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/crop_args.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    crop_window_args(OpSchema("crop_mirror_normalize"))
        .doc("Crops, mirrors, normalises ((x - mean) / std * scale + shift), changes the layout "
             "and casts in one pass over each image. Without `crop` the whole image is used.")
        .num_inputs(1, 1)
        .input_doc("input",
                   "HWC images (uint8 on the GPU; uint8, uint16, int16 or float on the CPU).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("mirror", ArgType::kInt, int64_t{0}, "Flip the image horizontally.", true)
        .arg("mean", ArgType::kFloatList, std::vector<double>{0.0},
             "Mean per channel (or one; with pad_output also one per output channel).", true)
        .arg("std", ArgType::kFloatList, std::vector<double>{1.0},
             "Standard deviation per channel (or one; with pad_output also one per output "
             "channel).",
             true)
        .arg("scale", ArgType::kFloat, 1.0, "Multiplies the normalised value.")
        .arg("shift", ArgType::kFloat, 0.0, "Added after scaling.")
        .arg("dtype", ArgType::kDType, std::string("FLOAT"),
             "Output type: FLOAT, FLOAT16, UINT8 or INT8.")
        .enum_arg("output_layout", {"CHW", "HWC"}, "CHW", "Layout of the output.")
        .arg("pad_output", ArgType::kBool, false,
             "Pad the channels to the next power of two (3 -> 4). The added channels hold their "
             "fill value: 0 unless out_of_bounds_policy is \"pad\", when fill_values holds one "
             "value or one per output channel."));

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

SLUICE_REGISTER_OPERATOR("crop_mirror_normalize", OpDevice::kCPU, CropMirrorNormalizeCpu);

}  // namespace
}  // namespace sluice
