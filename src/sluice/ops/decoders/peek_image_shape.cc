// peek_image_shape: the (height, width, channels) an image decodes to, from its header only.

#include "sluice/codecs/image_decoder.h"
#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/elementwise/convert.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(OpSchema("peek_image_shape")
                           .doc("The shape (height, width, channels) each encoded image decodes "
                                "to as RGB, read from its header without decoding.")
                           .num_inputs(1, 1)
                           .input_doc("data", "Encoded images.")
                           .devices({OpDevice::kCPU})
                           .arg("dtype", ArgType::kDType, std::string("INT64"), "Output type.")
                           .arg("adjust_orientation", ArgType::kBool, true,
                                "Report the shape after applying the EXIF orientation."));

class PeekImageShape : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    DType dtype = parse_dtype(spec_.arg<std::string>("dtype"));
    bool adjust = spec_.arg<bool>("adjust_orientation");
    out.resize_uniform(ws.batch_size(), {3}, dtype);
    ws.for_each_sample(
        [&](int i, int) {
          codecs::ImageInfo info = codecs::peek_image(in.sample<uint8_t>(i), in.sample_bytes(i));
          codecs::ImageSize s = codecs::oriented_size(info, adjust);
          int64_t shape[3] = {s.height, s.width,
                              codecs::output_channels(info, codecs::OutputColor::kRGB)};
          for (int k = 0; k < 3; ++k)
            kernels::store_sat(out.raw_sample(i), dtype, k, static_cast<double>(shape[k]));
        },
        ws.batch_size());
  }
};

SLUICE_REGISTER_OPERATOR("peek_image_shape", OpDevice::kCPU, PeekImageShape);

}  // namespace
}  // namespace sluice
