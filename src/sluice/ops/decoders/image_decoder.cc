// CPU image decoders: decoders.image, image_random_crop, image_crop and image_slice are one
// operator whose crop is a parameter. Headers are read first (in parallel) so the output can be
// one contiguous batch; then every sample decodes straight into its place.

#include <cstring>

#include "sluice/ops/decoders/decoder_args.h"

namespace sluice {
namespace {

class ImageDecoderCpu : public Operator {
 public:
  using Operator::Operator;

  void setup(const OpContext& ctx) override {
    args_ = parse_decoder_args(spec_);
    scratch_.resize(ctx.num_slots);
    for (auto& s : scratch_) s = std::make_unique<codecs::DecoderScratch>();
    staging_.resize(ctx.num_slots);
  }

  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const int n = ws.batch_size();
    std::vector<codecs::ImageInfo> info(n);
    std::vector<codecs::DecodeParams> params(n);
    std::vector<Shape> shapes(n, Shape{0, 0, 0});
    std::vector<char> bad(n, 0);
    std::vector<std::string> errors(n);
    // With on_error="skip" a DecodeError marks the sample bad; otherwise it propagates.
    auto guarded = [&](int i, const auto& fn) {
      if (!args_.skip_bad) return fn();
      try {
        fn();
      } catch (const DecodeError& e) {
        bad[i] = 1;
        errors[i] = ws.sample_context(i) + ": " + e.what();
      }
    };
    codecs::DecodeParams base;
    base.color = args_.color;
    base.adjust_orientation = args_.adjust_orientation;
    base.dtype = args_.dtype == DType::kUInt16 ? DType::kUInt16 : DType::kUInt8;
    base.max_pixels = args_.max_pixels;

    // 1. Headers, windows and output shapes.
    ws.for_each_sample([&](int i, int) {
      guarded(i, [&] {
        const auto* data = in.sample<uint8_t>(i);
        info[i] = codecs::peek_image(data, in.sample_bytes(i));
        codecs::ImageSize o = codecs::oriented_size(info[i], args_.adjust_orientation);
        params[i] = base;
        params[i].crop = decoder_window(args_, ws, i, o.height, o.width);
        shapes[i] = codecs::decoded_shape(info[i], params[i]);
      });
    });

    // 2. Decode into the contiguous batch, the costliest first.
    std::vector<double> cost(n, 0.0);
    for (int i = 0; i < n; ++i) {
      if (!bad[i]) cost[i] = decode_cost(in.sample_bytes(i), info[i], params[i].crop);
    }
    TensorList& out = ws.output(0);
    out.resize(shapes, args_.dtype);
    out.set_layout("HWC");
    ws.for_each_sample(
        [&](int i, int thread) {
          if (bad[i]) return;
          guarded(i, [&] {
            const auto* data = in.sample<uint8_t>(i);
            codecs::DecoderScratch& scratch = *scratch_[thread];
            if (args_.dtype != DType::kFloat32) {
              codecs::decode_image(data, in.sample_bytes(i), info[i], params[i], scratch,
                                   out.raw_sample(i));
              return;
            }
            auto& tmp = staging_[thread];
            tmp.resize(static_cast<size_t>(volume(shapes[i])));
            codecs::decode_image(data, in.sample_bytes(i), info[i], params[i], scratch, tmp.data());
            float* dst = out.sample<float>(i);
            for (size_t k = 0; k < tmp.size(); ++k) dst[k] = tmp[k] * (1.0f / 255.0f);
          });
        },
        1, cost);

    // 3. on_error="skip": replace bad samples by good ones, here and in earlier outputs.
    int num_bad = 0;
    std::string first;
    for (int i = 0; i < n; ++i) {
      if (bad[i] && !num_bad++) first = errors[i];
    }
    if (num_bad) {
      std::vector<int> source = replacement_sources(bad, first);
      out.remap_samples(source);
      ws.remap_earlier_outputs(source);
      skipped_ += num_bad;
    }
  }

  nlohmann::json stats() const override { return {{"skipped_samples", skipped_.load()}}; }

 private:
  DecoderArgs args_;
  std::vector<std::unique_ptr<codecs::DecoderScratch>> scratch_;
  std::vector<std::vector<uint8_t>> staging_;  // per thread, FLOAT output only
  std::atomic<int64_t> skipped_{0};
};

SLUICE_REGISTER_OPERATOR("decoders.image", OpDevice::kCPU, ImageDecoderCpu);
SLUICE_REGISTER_OPERATOR("decoders.image_random_crop", OpDevice::kCPU, ImageDecoderCpu);
SLUICE_REGISTER_OPERATOR("decoders.image_crop", OpDevice::kCPU, ImageDecoderCpu);
SLUICE_REGISTER_OPERATOR("decoders.image_slice", OpDevice::kCPU, ImageDecoderCpu);

}  // namespace
}  // namespace sluice
