#pragma once
// The skeleton of the image decoders, CPU (image_decoder.cc) and mixed
// (nvjpeg/image_decoder_mixed.cc). Per batch:
//   1. read_headers(): every sample's header, crop window and output shape, on the pool;
//      allocate_output() then makes output 0 one contiguous HWC batch of those shapes;
//   2. the decoder's own decoding, which records a bad sample with guarded() or reject();
//   3. replace_bad_samples(): with on_error="skip", each bad sample takes the data of the next
//      good one of the batch (wrapping around), in this output and in the outputs of earlier
//      operators (labels, ...), and is counted in stats() as skipped_samples; stats() also
//      names each skipped file once, with its first error, as skipped_files.
// With on_error="raise" (the default) a bad sample's DecodeError propagates instead.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/codecs/image_decoder.h"
#include "sluice/core/mutex.h"
#include "sluice/exec/operator.h"
#include "sluice/ops/decoders/decoder_args.h"

namespace sluice {

// One batch of a decoder's run(): what the headers said and which samples are bad.
struct DecodeBatch {
  explicit DecodeBatch(int n)
      : info(n), params(n), shapes(n, Shape{0, 0, 0}), bad(n, 0), errors(n) {}

  std::vector<codecs::ImageInfo> info;
  std::vector<codecs::DecodeParams> params;  // crop windows included
  std::vector<Shape> shapes;                 // output shapes ({0, 0, 0} for a bad header)
  std::vector<char> bad;                     // written by one thread per sample
  std::vector<std::string> errors;           // a bad sample's context and message

  void mark_bad(int i, std::string error) {
    bad[i] = 1;
    errors[i] = std::move(error);
  }
};

// A sample's decoding cost for handing out the costliest first (Workspace::for_each_sample):
// entropy decoding runs through the encoded bytes down to the window's last row.
double decode_cost(size_t encoded_bytes, const codecs::ImageInfo& info,
                   const std::optional<CropWindow>& window);

class ImageDecoderBase : public Operator {
 public:
  using Operator::Operator;
  // Parses the arguments and makes the CPU codec's per-thread state.
  void setup(const OpContext& ctx) override;
  nlohmann::json stats() const override;

 protected:
  // 1. Headers, windows and output shapes of input 0's samples, on the pool.
  DecodeBatch read_headers(Workspace& ws);
  // What a decoder refuses beyond what the header reader does: throws DecodeError.
  virtual void check_encoded(const uint8_t* data, size_t size,
                             const codecs::ImageInfo& info) const {}
  // Output 0 sized to the batch's shapes, HWC.
  TensorList& allocate_output(Workspace& ws, const DecodeBatch& b) const;

  // Runs fn(); with on_error="skip" a DecodeError marks sample i bad instead of propagating.
  template <typename Fn>
  void guarded(const Workspace& ws, DecodeBatch& b, int i, Fn&& fn) const {
    try {
      fn();
    } catch (const DecodeError& e) {
      if (!args_.skip_bad) throw;
      b.mark_bad(i, ws.sample_context(i) + ": " + e.what());
    }
  }
  // A failure reported without an exception (nvJPEG's): raises DecodeError(message), or with
  // on_error="skip" marks sample i bad.
  void reject(const Workspace& ws, DecodeBatch& b, int i, const std::string& message) const;

  // Decodes sample i of input 0 with the CPU codec into `dst` (host memory of the sample's
  // output size); `thread` indexes the per-thread state. FLOAT output is decoded as UINT8 (or
  // UINT16 for samples deeper than 8 bits) and scaled to [0, 1].
  void decode_with_cpu_codec(const Workspace& ws, const DecodeBatch& b, int i, int thread,
                             void* dst);

  // 3. on_error="skip": replaces the bad samples (see the header comment); device outputs are
  // copied on the pipeline's stream. Throws DecodeError when every sample is bad.
  void replace_bad_samples(Workspace& ws, const DecodeBatch& b, TensorList& out);

  int64_t skipped_samples() const { return skipped_.load(); }

  DecoderArgs args_;

 private:
  std::vector<std::unique_ptr<codecs::DecoderScratch>> scratch_;  // per thread
  std::vector<std::vector<uint8_t>> staging_;                     // per thread, FLOAT output only
  std::atomic<int64_t> skipped_{0};
  mutable Mutex skipped_mu_;
  nlohmann::json skipped_files_ SLUICE_GUARDED_BY(skipped_mu_) = nlohmann::json::object();
};

}  // namespace sluice
