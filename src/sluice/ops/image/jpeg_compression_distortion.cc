// jpeg_compression_distortion: JPEG compression at a given quality, then decompression, with
// libjpeg-turbo (as DALI's CPU operator). The GPU class is in jpeg_compression_distortion_gpu.cc.

#include "sluice/ops/image/jpeg_compression_distortion.h"

#include "sluice/codecs/jpeg_roundtrip.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/color_ops.h"

namespace sluice {

std::vector<JpegDistortionSample> plan_jpeg_distortion(const Workspace& ws) {
  const TensorList& in = ws.input(0);
  check_input_layout(in, {"HWC", "FHWC"});
  SLUICE_CHECK(in.dtype() == DType::kUInt8, InvalidArgument,
               "jpeg_compression_distortion takes UINT8 input, got ", dtype_name(in.dtype()));
  std::vector<JpegDistortionSample> samples;
  for (int i = 0; i < in.num_samples(); ++i) {
    const Shape& s = in.shape(i);
    SLUICE_CHECK(s.back() == 3, InvalidArgument,
                 "Invalid number of channels. Expected a channel-last layout, with 3 channels "
                 "(RGB), got shape: ",
                 shape_to_string(s));
    samples.push_back({s.size() == 4 ? s[0] : 1, s[s.size() - 3], s[s.size() - 2]});
  }
  return samples;
}

void jpeg_distort_sample(const uint8_t* in, uint8_t* out, const JpegDistortionSample& s,
                         int quality, std::vector<uint8_t>& scratch) {
  const int64_t frame = s.height * s.width * 3;
  for (int64_t f = 0; f < s.frames; ++f) {
    codecs::jpeg_roundtrip(in + f * frame, out + f * frame, static_cast<int>(s.height),
                           static_cast<int>(s.width), quality, scratch);
  }
}

namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("jpeg_compression_distortion")
        .doc("Adds JPEG compression artefacts to RGB images: each image is compressed with the "
             "given quality (4:2:0 chroma, libjpeg-turbo) and decompressed.")
        .num_inputs(1, 1)
        .input_doc("input", "UINT8 RGB images (HWC) or sequences of them (FHWC).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("quality", ArgType::kInt, int64_t{50},
             "JPEG quality, 1 (lowest) to 100 (highest); values outside are clamped.", true));

class JpegCompressionDistortionCpu : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override { scratch_.resize(ctx.num_slots); }
  void run(Workspace& ws) override {
    const auto plan = plan_jpeg_distortion(ws);
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), DType::kUInt8);
    out.set_layout(in.layout());
    std::vector<double> cost(plan.size());
    for (size_t i = 0; i < plan.size(); ++i) cost[i] = static_cast<double>(volume(in.shape(i)));
    ws.for_each_sample(
        [&](int i, int thread) {
          jpeg_distort_sample(in.sample<uint8_t>(i), out.sample<uint8_t>(i), plan[i],
                              ws.arg<int>("quality", i), scratch_[thread]);
        },
        1, cost);
  }

 private:
  std::vector<std::vector<uint8_t>> scratch_;  // encoded stream, per thread
};

SLUICE_REGISTER_OPERATOR("jpeg_compression_distortion", OpDevice::kCPU,
                         JpegCompressionDistortionCpu);

}  // namespace
}  // namespace sluice
