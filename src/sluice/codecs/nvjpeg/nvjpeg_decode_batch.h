#pragma once
// Internal: one decode() call of NvjpegDecoder. Not a public header: it includes nvjpeg.h.
//
// A BatchDecode lives for one call and holds what lasts one batch: the requests and results,
// each sample's parse facts and plan, the partition into the hardware share and the rest, the
// place of the batch in the staging buffer, which pool threads queued work, and the timings the
// balancing and the statistics read. What lasts across batches (handles, per-thread states,
// parameters, the hardware lanes, the balanced share, statistics) is the decoder's Impl.

#include <nvjpeg.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"
#include "sluice/codecs/nvjpeg/nvjpeg_decoder_impl.h"
#include "sluice/codecs/nvjpeg/nvjpeg_hw_lanes.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/parallel/thread_pool.h"

namespace sluice::nvjpeg {

enum class Plan : uint8_t { kNone, kHardware, kHybrid };

// Per-sample facts from the parse phase.
struct SampleState {
  Plan plan = Plan::kNone;  // kNone: the result is final (fallback or error)
  bool hw_candidate = false;
  bool gpu_huffman = false;
  int css_score = 0;  // DALI's ordering: 4:4:4 first, unknown last
  int out_w = 0;
  int out_h = 0;
  const uint8_t* staged = nullptr;  // pinned copy for the hardware decoder
  Roi roi;                          // the decoded region (whole image: use_roi false)
  bool use_roi = false;
};

class NvjpegDecoder::Impl::BatchDecode {
 public:
  // Resets the results, grows the decoder's parameters and, when the batch may use the hardware
  // decoder, takes a staging buffer for it (Note [Hardware staging]). `decoder` must outlive
  // this object; the caller has checked the arguments and made the device current.
  BatchDecode(Impl& decoder, std::span<const DecodeRequest> batch, OutputColor color,
              std::span<DecodeResult> results);
  BatchDecode(const BatchDecode&) = delete;
  BatchDecode& operator=(const BatchDecode&) = delete;

  // Steps 1 to 4 of nvjpeg_decoder.h's overview, then the batch's statistics.
  void run(ThreadPool& pool, cuda::StreamHandle stream, const HostDecode* host);

 private:
  // --- nvjpeg_parse.cc ---
  void parse_sample(int slot, int i);
  void route();
  // --- nvjpeg_decode_batch.cc ---
  void submit_hardware();
  void begin_slot(int slot, bool after_hardware);
  void decode_hybrid(int slot, int i, bool retry);
  void join(cuda::StreamHandle stream);
  void account();
  void balance(double hw_ms, double rest_ms);  // Note [Balancing the hardware share]
  // Submits up to pool.num_threads() tasks that share items [0, count) in order.
  void launch(ThreadPool::TaskGroup& group, ThreadPool& pool, std::atomic<int>& next, int count,
              const std::function<void(int item, int slot)>& body);

  Impl& d_;
  const DecodeRequest* const requests_;
  DecodeResult* const results_;
  const int batch_size_;
  const nvjpegOutputFormat_t format_;
  const int channels_;
  std::vector<SampleState> samples_;
  std::vector<uint8_t> active_;  // by slot: queued work (waited for the entry event; to be joined)

  // Hardware share.
  bool hw_possible_ = false;    // this batch may use the hardware decoder
  uint8_t* staging_ = nullptr;  // the batch's staging buffer (Note [Hardware staging])
  std::atomic<size_t> staged_bytes_{0};
  HwSubmission hw_;         // what the lanes did; hw_.queued: the caller's stream joins them
  std::string hw_failure_;  // why nvJPEG rejected the hardware sub-batch

  // The partition, in DALI's order (route()).
  std::vector<int> hw_list_;
  std::vector<int> hybrid_list_;
  std::vector<int> retry_list_;  // hardware samples to decode again on the hybrid path

  // Wall time of the phases (milliseconds; NvjpegDecoderStats).
  double parse_ms_ = 0;
  double decode_ms_ = 0;
  double hw_submit_ms_ = 0;
};

}  // namespace sluice::nvjpeg
