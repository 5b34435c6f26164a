#include "sluice/ops/decoders/image_decoder_base.h"

#include <algorithm>

namespace sluice {
namespace {

// on_error="skip": each bad sample takes the data of the next good one in the batch (wrapping
// around). Returns the source index of every sample; throws when every sample is bad.
std::vector<int> replacement_sources(const std::vector<char>& bad, const std::string& first_error) {
  const int n = static_cast<int>(bad.size());
  std::vector<int> source(n);
  int good = -1;
  for (int i = n - 1; i >= 0; --i) {
    if (!bad[i]) good = i;  // ends as the first good sample: the wrap-around target
  }
  SLUICE_CHECK(good >= 0, DecodeError,
               "on_error='skip': every sample of the batch is bad, "
               "nothing to replace them with; first error: ",
               first_error);
  for (int i = n - 1; i >= 0; --i) {
    if (!bad[i]) good = i;
    source[i] = good;  // the next good sample at or after i
  }
  return source;
}

}  // namespace

double decode_cost(size_t encoded_bytes, const codecs::ImageInfo& info,
                   const std::optional<CropWindow>& window) {
  const double bytes = static_cast<double>(encoded_bytes);
  if (!window || info.height <= 0) return bytes;
  // The window is in oriented coordinates; for a rotated image this is only an estimate.
  return bytes * std::min(1.0, static_cast<double>(window->y + window->h) /
                                   static_cast<double>(info.height));
}

void ImageDecoderBase::setup(const OpContext& ctx) {
  args_ = parse_decoder_args(spec_);
  scratch_.resize(ctx.num_slots);
  for (auto& s : scratch_) s = std::make_unique<codecs::DecoderScratch>();
  staging_.resize(ctx.num_slots);
}

DecodeBatch ImageDecoderBase::read_headers(Workspace& ws) {
  const TensorList& in = ws.input(0);
  DecodeBatch b(ws.batch_size());
  codecs::DecodeParams base;
  base.color = args_.color;
  base.adjust_orientation = args_.adjust_orientation;
  base.dtype = args_.dtype == DType::kUInt16 ? DType::kUInt16 : DType::kUInt8;
  base.max_pixels = args_.max_pixels;
  ws.for_each_sample([&](int i, int) {
    guarded(ws, b, i, [&] {
      const auto* data = in.sample<uint8_t>(i);
      b.info[i] = codecs::peek_image(data, in.sample_bytes(i));
      check_encoded(data, in.sample_bytes(i), b.info[i]);
      codecs::ImageSize o = codecs::oriented_size(b.info[i], args_.adjust_orientation);
      b.params[i] = base;
      b.params[i].crop = decoder_window(args_, ws, i, o.height, o.width);
      b.shapes[i] = codecs::decoded_shape(b.info[i], b.params[i]);
    });
  });
  return b;
}

TensorList& ImageDecoderBase::allocate_output(Workspace& ws, const DecodeBatch& b) const {
  TensorList& out = ws.output(0);
  out.resize(b.shapes, args_.dtype);
  out.set_layout("HWC");
  return out;
}

void ImageDecoderBase::reject(const Workspace& ws, DecodeBatch& b, int i,
                              const std::string& message) const {
  if (!args_.skip_bad) throw DecodeError(message);
  b.mark_bad(i, ws.sample_context(i) + ": " + message);
}

void ImageDecoderBase::decode_with_cpu_codec(const Workspace& ws, const DecodeBatch& b, int i,
                                             int thread, void* dst) {
  const TensorList& in = ws.input(0);
  const auto* data = in.sample<uint8_t>(i);
  codecs::DecoderScratch& scratch = *scratch_[thread];
  if (args_.dtype != DType::kFloat32) {
    codecs::decode_image(data, in.sample_bytes(i), b.info[i], b.params[i], scratch, dst);
    return;
  }
  // FLOAT keeps the file's precision, as DALI's: samples deeper than 8 bits are decoded as
  // UINT16 and scaled by 1/65535, the rest as UINT8 and scaled by 1/255.
  codecs::DecodeParams p = b.params[i];
  const bool deep = codecs::has_deep_samples(b.info[i]);
  p.dtype = deep ? DType::kUInt16 : DType::kUInt8;
  const size_t n = static_cast<size_t>(volume(b.shapes[i]));
  auto& tmp = staging_[thread];
  tmp.resize(n * (deep ? 2 : 1));
  codecs::decode_image(data, in.sample_bytes(i), b.info[i], p, scratch, tmp.data());
  auto* f = static_cast<float*>(dst);
  if (deep) {
    const auto* v = reinterpret_cast<const uint16_t*>(tmp.data());
    for (size_t k = 0; k < n; ++k) f[k] = v[k] * (1.0f / 65535.0f);
  } else {
    for (size_t k = 0; k < n; ++k) f[k] = tmp[k] * (1.0f / 255.0f);
  }
}

void ImageDecoderBase::replace_bad_samples(Workspace& ws, const DecodeBatch& b, TensorList& out) {
  int num_bad = 0;
  std::string first;
  for (size_t i = 0; i < b.bad.size(); ++i) {
    if (b.bad[i] && !num_bad++) first = b.errors[i];
  }
  if (!num_bad) return;
  std::vector<int> source = replacement_sources(b.bad, first);
  {
    // Before the remapping below, which gives a bad sample its replacement's file.
    MutexLock lock(skipped_mu_);
    for (int i = 0; i < static_cast<int>(b.bad.size()); ++i) {
      std::string file = b.bad[i] ? ws.sample_source(i) : std::string();
      if (file.empty() || skipped_files_.contains(file)) continue;
      // The error without its "sample 3 (file '...'): " prefix: the file is the key.
      const std::string prefix = ws.sample_context(i) + ": ";
      const std::string& e = b.errors[i];
      skipped_files_[file] = e.starts_with(prefix) ? e.substr(prefix.size()) : e;
    }
  }
  out.remap_samples(source, ws.stream());
  ws.remap_earlier_outputs(source);
  skipped_ += num_bad;
}

nlohmann::json ImageDecoderBase::stats() const {
  MutexLock lock(skipped_mu_);
  return {{"skipped_samples", skipped_samples()}, {"skipped_files", skipped_files_}};
}

}  // namespace sluice
