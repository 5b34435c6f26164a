#pragma once
// Internal: the hardware lanes of NvjpegDecoder, which send a batch's hardware share to nvJPEG's
// batched hardware decoder (nvjpegDecodeBatchedEx). Not a public header: it includes nvjpeg.h.
//
// A lane is a batched state with its own stream; lanes other than the first have their own
// handle too (nvJPEG serialises batched submissions on one handle) and submit from a thread of
// their own, concurrently with the first, which submits from the calling thread. Each lane's
// work joins the hardware stream, after which done() is recorded. The lane count is
// hardware_lanes, else SLUICE_NVJPEG_HW_LANES, else policy::kHardwareLanes.
//
// Thread safety: set_up() and the tear-down run on the decoder's owner; ready(), failed() and
// status() may be called from any thread; begin_staging(), submit() and done() only by the one
// decode() at a time, and only once ready().

#include <nvjpeg.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/memory/buffer.h"

namespace sluice::nvjpeg {

// Bytes a sample takes in the hardware staging buffer (Note [Hardware staging]).
inline size_t staged_size(size_t bytes) {
  constexpr size_t kAlignment = 64;
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

// One sample of a hardware sub-batch.
struct HwSample {
  const unsigned char* staged = nullptr;  // its stream in the staging buffer (begin_staging())
  size_t length = 0;
  uint8_t* dst = nullptr;
  size_t pitch = 0;
  nvjpegDecodeParams_t params = nullptr;  // output format and ROI set, on the decoder's handle
  Roi roi;  // for the parameters a lane with its own handle sets (whole image: use_roi false)
  bool use_roi = false;
};

// What submit() did with one batch's hardware share.
struct HwSubmission {
  // Set once the lanes are called: from then on done() is what the batch's caller must wait for.
  bool queued = false;
  // Host wait before the lanes were called: the engines' previous batch and the caller's
  // earlier work (Note [Hardware writes ignore stream order]).
  double wait_ms = 0;
  // One part per lane used: samples [begin, end) of submit()'s span, and why nvJPEG rejected
  // them as a whole (empty: decoded).
  struct Part {
    int begin = 0;
    int end = 0;
    std::string failure;
  };
  std::vector<Part> parts;
};

class HardwareLanes {
 public:
  // `handle` (created for the hardware backend; lane 0 uses it) and the allocators must outlive
  // the lanes. `max_samples`: the largest hardware share expected, which sizes the
  // preallocation. Creates nothing: set_up() does.
  HardwareLanes(const NvjpegDecoderOptions& opt, nvjpegHandle_t handle,
                nvjpegDevAllocator_t* dev_allocator, nvjpegPinnedAllocator_t* pinned_allocator,
                unsigned int handle_flags, int max_samples);
  // Joins the set-up, waits for the lanes' work and releases them, with the decoder's device
  // current (the decoder's destructor makes it so); never throws.
  ~HardwareLanes();
  HardwareLanes(const HardwareLanes&) = delete;
  HardwareLanes& operator=(const HardwareLanes&) = delete;

  // Creates the lanes' handles, batched states, streams and events: here (throws CudaError /
  // OutOfMemory), or with `in_background` on a thread of its own, whose failure turns the
  // hardware decoder off (status() says why).
  void set_up(bool in_background);
  bool ready() const { return state_.load(std::memory_order_acquire) == kReady; }
  bool failed() const { return state_.load(std::memory_order_acquire) == kFailed; }
  // `on` ("on: 7 engine(s) x 5 core(s)") while being set up (saying so) and once ready; why the
  // hardware decoder is off after a failed background set-up.
  std::string status(const std::string& on) const;

  // Note [Hardware staging]: the staging buffer for the next submission, `bytes` long, once the
  // submission before last that read it has finished.
  uint8_t* begin_staging(size_t bytes);
  // Submits `samples` in contiguous shares, one per lane, and returns when every lane's call has
  // returned (the engines may still be writing). First waits on the host for the previous
  // submission and for `entry` (Note [Hardware writes ignore stream order]). A lane's share that
  // nvJPEG rejects as a whole is reported in `out`; only CUDA failures throw. No samples: no-op.
  void submit(std::span<const HwSample> samples, nvjpegOutputFormat_t format,
              const cuda::Event& entry, HwSubmission& out);
  // Recorded on the hardware stream after the last submission's work.
  cuda::EventHandle done() const { return done_.get(); }

  // Tear-down steps, for the decoder's destructor to take in its order (the destructor takes
  // them too): wait for the background set-up; wait for the lanes' streams (a failure is
  // reported on stderr).
  void join_setup();
  void synchronize_quietly();

 private:
  struct Lane {
    nvjpegHandle_t handle = nullptr;               // the decoder's (lane 0) or the lane's own
    std::vector<nvjpegDecodeParams_t> own_params;  // created with `handle`, grown on demand
    nvjpegJpegState_t state = nullptr;
    cuda::Stream stream;
    cuda::Event done;
    // This submission's share: samples [begin, end) and what nvJPEG said.
    int begin = 0;
    int end = 0;
    std::vector<const unsigned char*> data;
    std::vector<size_t> lengths;
    std::vector<nvjpegImage_t> dst;
    std::vector<nvjpegDecodeParams_t> params;
    nvjpegStatus_t status = NVJPEG_STATUS_SUCCESS;
    const char* phase = "";
    std::string allocation_failure;  // with NVJPEG_STATUS_ALLOCATOR_FAILURE: why
  };
  void create_lanes();
  void submit_lane(Lane& lane, std::span<const HwSample> samples, nvjpegOutputFormat_t format);

  const NvjpegDecoderOptions opt_;
  const nvjpegHandle_t handle_;
  nvjpegDevAllocator_t* const dev_allocator_;
  nvjpegPinnedAllocator_t* const pinned_allocator_;
  const unsigned int handle_flags_;
  const int max_samples_;

  // Note [Hardware set-up in the background]
  // Creating the hardware decoder's batched states takes longer than everything else a pipeline
  // builds (nvJPEG sets up the engines; bench/RESULTS.md#gpu-setup). With
  // hardware_setup_in_background, create_lanes() runs on setup_ while the first batches
  // decode on the hybrid path; decode() sends work to the engines once ready(). Until then only
  // setup_ touches the lanes, the hardware stream and the staging events.
  enum State : int { kPending, kReady, kFailed };
  std::atomic<int> state_{kPending};
  std::thread setup_;
  mutable std::mutex failure_mu_;  // failure_ is written by setup_
  std::string failure_;

  std::vector<Lane> lanes_;
  cuda::Stream stream_;  // joins the lanes: done_ and staging_done_ are recorded here
  cuda::Event done_;     // after the last submission; awaited before the next one
  // Note [Hardware staging]
  // The hardware decoder reads its input bitstreams asynchronously, so they are copied into
  // pinned staging memory during the parse phase (on the pool). Two staging buffers alternate
  // between batches; a buffer is rewritten only after `staging_done_` of its previous batch, so
  // the wait is for the batch before last, which has normally long finished.
  Buffer staging_[2] = {Buffer(MemoryKind::kPinned), Buffer(MemoryKind::kPinned)};
  cuda::Event staging_done_[2];
  int staging_index_ = 0;
};

}  // namespace sluice::nvjpeg
