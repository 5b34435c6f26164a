#pragma once
// Internal: the long-lived state behind NvjpegDecoder, what lasts from one batch to the next
// (handles, per-thread states, reused parameters, the hardware lanes, the balanced share,
// statistics). Set up and torn down in nvjpeg_decoder.cc; each decode() call makes a BatchDecode
// (nvjpeg_decode_batch.h) for what lasts one batch. Not a public header: it includes nvjpeg.h.

#include <nvjpeg.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"
#include "sluice/codecs/nvjpeg/nvjpeg_hw_lanes.h"
#include "sluice/cuda/cuda_api.h"

namespace sluice::nvjpeg {

// Setting a sample's outcome (nvjpeg_decode_batch.cc). set_failure: a failed nvJPEG phase is a
// fallback or an error per Note [Fallback or error] (nvjpeg_check.h), out of memory for an
// allocator failure.
void set_decoded(DecodeResult& r, DecodeRoute route);
void set_fallback(DecodeResult& r, std::string msg);
void set_error(DecodeResult& r, std::string msg);
void set_failure(DecodeResult& r, const char* phase, nvjpegStatus_t s, const std::string& note);
// A failed parse is a fallback (the CPU codec decides), except for an allocator failure.
void set_parse_failure(DecodeResult& r, const char* phase, nvjpegStatus_t s,
                       const std::string& note);

// Index of the two hybrid backends in the per-thread arrays.
inline constexpr int kHybridCpu = 0;  // NVJPEG_BACKEND_HYBRID: Huffman on the CPU
inline constexpr int kHybridGpu = 1;  // NVJPEG_BACKEND_GPU_HYBRID: Huffman on the GPU
inline constexpr int kNumHybridBackends = 2;

// Note [Double buffering]
// A thread alternates between two pages. The host phase of a sample (nvjpegDecodeJpegHost)
// writes the page's pinned buffer and jpeg stream; the transfer phase copies from them
// asynchronously on the thread's CUDA stream. So the host phase of sample k+1 (other page) runs
// while the copies and kernels of sample k are in flight. Two waits keep this safe:
// - before a page is written again, its `done` event (recorded after the device phase of the
//   sample that last used it) is awaited;
// - before the transfer phase of sample k+1, the device work of sample k is awaited, as DALI
//   and nvImageCodec do: the thread's device buffer, shared by both pages, may be reallocated
//   by the transfer phase while sample k's kernels still read it.
struct PageState {
  nvjpegJpegStream_t jpeg_stream = nullptr;
  nvjpegBufferPinned_t pinned = nullptr;
  nvjpegJpegState_t states[kNumHybridBackends] = {};  // use `pinned` (attached per sample)
  cuda::Event done;
};

// Everything one pool thread (slot) uses; touched only by the thread running that slot during a
// batch, and by the caller between the pool's barriers.
struct ThreadState {
  nvjpegJpegStream_t probe_stream = nullptr;  // parse phase (hardware eligibility)
  nvjpegJpegDecoder_t decoders[kNumHybridBackends] = {};
  nvjpegBufferDevice_t device_buffer = nullptr;  // shared by all four states
  PageState pages[2];
  int next_page = 0;
  cuda::Stream stream;
  cuda::Event join;  // recorded at the end of a batch; the caller's stream waits for it
};

struct NvjpegDecoder::Impl {
  unsigned int handle_flags() const {
    return opt_.fancy_upsampling ? NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION
                                 : NVJPEG_FLAGS_DEFAULT;
  }
  explicit Impl(const NvjpegDecoderOptions& options)
      : opt_(options), load_(options.hw_decoder_load) {}
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // --- set-up (nvjpeg_decoder.cc) ---
  void init();
  void init_hardware();
  void add_thread_state();
  int hw_batch_size(int decodable) const;
  // Note [Hardware set-up in the background] (nvjpeg_hw_lanes.h)
  bool hw_ready() const { return lanes_ && lanes_->ready(); }
  // Parameters for the samples [0, n), created on first use and kept.
  void grow_params(size_t n);

  // --- one batch: checks the arguments, then a BatchDecode does the work ---
  class BatchDecode;  // nvjpeg_decode_batch.h
  void decode(std::span<const DecodeRequest> batch, OutputColor color, ThreadPool& pool,
              cuda::StreamHandle stream, std::span<DecodeResult> results, const HostDecode* host);

  const NvjpegDecoderOptions opt_;
  // The hardware share of the next batch; moves with balance_hw_load (Note [Balancing the
  // hardware share] in nvjpeg_decode_batch.cc).
  std::atomic<double> load_;

  nvjpegHandle_t handle_ = nullptr;
  nvjpegDevAllocator_t dev_allocator_{};
  nvjpegPinnedAllocator_t pinned_allocator_{};
  bool device_ok_ = false;  // require_device passed: tear-down may touch the device

  // Hardware decoder.
  bool hw_enabled_ = false;  // the device has engines and hw_decoder_load > 0
  std::string hw_status_;    // "on: ..." or why it is off; set by init()
  unsigned hw_engines_ = 0;
  unsigned hw_cores_ = 0;
  std::unique_ptr<HardwareLanes> lanes_;  // with hw_enabled_

  std::vector<std::unique_ptr<ThreadState>> threads_;
  std::vector<nvjpegDecodeParams_t> params_;  // by sample index, grown on demand
  cuda::Event entry_;  // recorded on the caller's stream when decode() starts

  mutable std::mutex stats_mu_;
  NvjpegDecoderStats stats_;
};

}  // namespace sluice::nvjpeg
