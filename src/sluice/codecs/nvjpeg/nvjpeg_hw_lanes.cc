// The hardware lanes of NvjpegDecoder: set-up (now or in the background), submission of a
// batch's hardware share, tear-down. The interface is in nvjpeg_hw_lanes.h.

#include "sluice/codecs/nvjpeg/nvjpeg_hw_lanes.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>

#include "sluice/codecs/nvjpeg/nvjpeg_allocator.h"
#include "sluice/codecs/nvjpeg/nvjpeg_check.h"
#include "sluice/codecs/nvjpeg/nvjpeg_policy.h"
#include "sluice/core/error.h"

namespace sluice::nvjpeg {
namespace {

// hardware_lanes, else SLUICE_NVJPEG_HW_LANES, else the policy's count.
int lane_count(int option) {
  if (option > 0) return option;
  const char* env = std::getenv("SLUICE_NVJPEG_HW_LANES");
  return env && std::atoi(env) > 0 ? std::atoi(env) : policy::kHardwareLanes;
}

}  // namespace

HardwareLanes::HardwareLanes(const NvjpegDecoderOptions& opt, nvjpegHandle_t handle,
                             nvjpegDevAllocator_t* dev_allocator,
                             nvjpegPinnedAllocator_t* pinned_allocator, unsigned int handle_flags,
                             int max_samples)
    : opt_(opt),
      handle_(handle),
      dev_allocator_(dev_allocator),
      pinned_allocator_(pinned_allocator),
      handle_flags_(handle_flags),
      max_samples_(max_samples),
      lanes_(lane_count(opt.hardware_lanes)) {}

void HardwareLanes::set_up(bool in_background) {
  if (!in_background) return create_lanes();
  setup_ = std::thread([this] {
    try {
      create_lanes();
    } catch (const std::exception& e) {
      // Nobody can catch this here: the decoder goes on with the hybrid path and
      // hardware_status() says why.
      std::lock_guard<std::mutex> lk(failure_mu_);
      failure_ = make_string("off: setting up the hardware decoder failed: ", e.what());
      state_.store(kFailed, std::memory_order_release);
    }
  });
}

void HardwareLanes::create_lanes() {
  cuda::DeviceGuard guard(opt_.device);
  const int lanes = static_cast<int>(lanes_.size());
  const int per_lane = std::max(1, (max_samples_ + lanes - 1) / lanes);
  for (Lane& lane : lanes_) {
    if (&lane == &lanes_[0]) {
      lane.handle = handle_;
    } else {
      SLUICE_NVJPEG_CHECK(nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, dev_allocator_, pinned_allocator_,
                                         handle_flags_, &lane.handle));
      SLUICE_NVJPEG_CHECK(nvjpegSetDeviceMemoryPadding(opt_.device_memory_padding, lane.handle));
      SLUICE_NVJPEG_CHECK(nvjpegSetPinnedMemoryPadding(opt_.host_memory_padding, lane.handle));
    }
    SLUICE_NVJPEG_CHECK(nvjpegJpegStateCreate(lane.handle, &lane.state));
    // DALI calls this even without size hints (which nvJPEG refuses as 0, hence 1): it sets
    // up the hardware decoder's memory pool, ">20% for 8GPU training".
    SLUICE_NVJPEG_CHECK(nvjpegDecodeBatchedPreAllocate(
        lane.handle, lane.state, per_lane, std::max(1, opt_.preallocate_width_hint),
        std::max(1, opt_.preallocate_height_hint), NVJPEG_CSS_444, NVJPEG_OUTPUT_RGBI));
    lane.stream = cuda::Stream(opt_.device, opt_.stream_priority);
    lane.done = cuda::Event(opt_.device);
  }
  stream_ = cuda::Stream(opt_.device, opt_.stream_priority);
  done_ = cuda::Event(opt_.device);
  for (auto& e : staging_done_) e = cuda::Event(opt_.device);
  for (auto& b : staging_) b.set_stream(stream_.get());
  state_.store(kReady, std::memory_order_release);
}

std::string HardwareLanes::status(const std::string& on) const {
  std::lock_guard<std::mutex> lk(failure_mu_);
  switch (state_.load(std::memory_order_acquire)) {
    case kPending:
      return on + " (being set up: meanwhile the rest decoder takes every image)";
    case kFailed:
      return failure_;
    default:
      return on;
  }
}

uint8_t* HardwareLanes::begin_staging(size_t bytes) {
  staging_index_ ^= 1;
  staging_done_[staging_index_].synchronize();
  staging_[staging_index_].resize(std::max<size_t>(bytes, 1));
  return static_cast<uint8_t*>(staging_[staging_index_].data());
}

void HardwareLanes::submit(std::span<const HwSample> samples, nvjpegOutputFormat_t format,
                           const cuda::Event& entry, HwSubmission& out) {
  if (samples.empty()) return;
  // The batched states are reused: their previous batch must have finished before they are
  // re-initialized (DALI and nvImageCodec wait here too). Normally long done: it was submitted
  // one decode() ago; hardware_wait_ms says how long this waits (engines slower than the rest).
  const auto t0 = std::chrono::steady_clock::now();
  done_.synchronize();
  // Note [Hardware writes ignore stream order]
  // nvJPEG's batched hardware decoder writes the destinations while it is being called, whatever
  // is still queued on its stream: waiting on `entry` there does not hold the writes back
  // (NvjpegRobustness.WritesFollowWorkQueuedBeforeDecode; torchcodec pull request 1634 found it
  // on H100 with nvJPEG 12.3 to 13.2). So the host waits until the caller's earlier work has run;
  // in a pipeline that is the GPU stage still reading the previous batch out of these buffers.
  entry.synchronize();
  out.wait_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  out.queued = true;
  // Contiguous shares of the samples (in the decoder's order), one per lane.
  const int m = static_cast<int>(samples.size());
  const int lanes = std::min<int>(static_cast<int>(lanes_.size()), m);
  for (int l = 0; l < static_cast<int>(lanes_.size()); ++l) {
    lanes_[l].begin = l < lanes ? static_cast<int>(int64_t(m) * l / lanes) : m;
    lanes_[l].end = l < lanes ? static_cast<int>(int64_t(m) * (l + 1) / lanes) : m;
  }
  // A CUDA failure on a helper thread is rethrown here: escaping the thread would end the process.
  std::vector<std::exception_ptr> errors(lanes);
  std::vector<std::thread> helpers;
  for (int l = 1; l < lanes; ++l) {
    helpers.emplace_back([this, l, samples, format, &errors] {
      try {
        cuda::DeviceGuard guard(opt_.device);
        submit_lane(lanes_[l], samples, format);
      } catch (...) {
        errors[l] = std::current_exception();
      }
    });
  }
  if (lanes > 0) {
    try {
      submit_lane(lanes_[0], samples, format);
    } catch (...) {
      errors[0] = std::current_exception();
    }
  }
  for (auto& t : helpers) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  for (int l = 0; l < lanes; ++l) cuda::stream_wait_event(stream_.get(), lanes_[l].done.get());
  // Recorded after a failure too: nvJPEG may have queued part of the work.
  staging_done_[staging_index_].record(stream_.get());
  done_.record(stream_.get());
  for (int l = 0; l < lanes; ++l) {
    const Lane& lane = lanes_[l];
    HwSubmission::Part& part = out.parts.emplace_back();
    part.begin = lane.begin;
    part.end = lane.end;
    if (lane.status == NVJPEG_STATUS_SUCCESS) continue;
    part.failure = make_string(lanes > 1 ? make_string("lane ", l, ": ") : std::string(),
                               lane.phase, " for ", lane.end - lane.begin, " samples returned ",
                               nvjpeg_status_name(lane.status), lane.allocation_failure);
  }
}

void HardwareLanes::submit_lane(Lane& lane, std::span<const HwSample> samples,
                                nvjpegOutputFormat_t format) {
  const int m = lane.end - lane.begin;
  lane.data.resize(m);
  lane.lengths.resize(m);
  lane.dst.resize(m);
  lane.params.resize(m);
  for (int k = 0; k < m; ++k) {
    const HwSample& s = samples[lane.begin + k];
    lane.data[k] = s.staged;
    lane.lengths[k] = s.length;
    lane.dst[k] = nvjpegImage_t{};
    lane.dst[k].channel[0] = s.dst;
    lane.dst[k].pitch[0] = s.pitch;
    if (lane.handle == handle_) {
      lane.params[k] = s.params;
      continue;
    }
    // Parameters belong to their handle: this lane's own, set like the sample's.
    if (lane.own_params.size() <= static_cast<size_t>(k)) {
      nvjpegDecodeParams_t p = nullptr;
      lane.status = nvjpegDecodeParamsCreate(lane.handle, &p);
      if (lane.status != NVJPEG_STATUS_SUCCESS) {
        lane.phase = "nvjpegDecodeParamsCreate";
        return lane.done.record(lane.stream.get());
      }
      lane.own_params.push_back(p);
    }
    nvjpegDecodeParams_t p = lane.own_params[k];
    const Roi& r = s.roi;
    lane.status = nvjpegDecodeParamsSetOutputFormat(p, format);
    if (lane.status == NVJPEG_STATUS_SUCCESS) {
      lane.status = s.use_roi ? nvjpegDecodeParamsSetROI(p, r.x, r.y, r.w, r.h)
                              : nvjpegDecodeParamsSetROI(p, 0, 0, -1, -1);
    }
    if (lane.status != NVJPEG_STATUS_SUCCESS) {
      lane.phase = "nvjpegDecodeParamsSet";
      return lane.done.record(lane.stream.get());
    }
    lane.params[k] = p;
  }
  // No stream_wait_event on the entry event: submit() waited for it on the host (Note [Hardware
  // writes ignore stream order]).
  lane.phase = "nvjpegDecodeBatchedInitialize";
  // max_cpu_threads is not used by the hardware backend (DALI passes 1 as well).
  lane.status = nvjpegDecodeBatchedInitialize(lane.handle, lane.state, m, 1, format);
  if (lane.status == NVJPEG_STATUS_SUCCESS) {
    lane.phase = "nvjpegDecodeBatchedEx";
    lane.status = nvjpegDecodeBatchedEx(lane.handle, lane.state, lane.data.data(),
                                        lane.lengths.data(), lane.dst.data(), lane.params.data(),
                                        static_cast<cudaStream_t>(lane.stream.get()));
  }
  // The allocators' reason is kept per thread: read it on this one.
  lane.allocation_failure = lane.status == NVJPEG_STATUS_ALLOCATOR_FAILURE
                                ? make_string(" (", take_allocation_failure(), ")")
                                : std::string();
  lane.done.record(lane.stream.get());
}

void HardwareLanes::join_setup() {
  if (setup_.joinable()) setup_.join();
}

void HardwareLanes::synchronize_quietly() {
  nvjpeg::synchronize_quietly(stream_);
  for (Lane& lane : lanes_) nvjpeg::synchronize_quietly(lane.stream);
}

HardwareLanes::~HardwareLanes() {
  join_setup();
  synchronize_quietly();
  for (Lane& lane : lanes_) {
    if (lane.state) release_check(nvjpegJpegStateDestroy(lane.state), "nvjpegJpegStateDestroy");
    for (nvjpegDecodeParams_t p : lane.own_params) {
      release_check(nvjpegDecodeParamsDestroy(p), "nvjpegDecodeParamsDestroy");
    }
    if (lane.handle && lane.handle != handle_) {
      release_check(nvjpegDestroy(lane.handle), "nvjpegDestroy");
    }
  }
  lanes_.clear();
  for (Buffer& b : staging_) b.reset();
}

}  // namespace sluice::nvjpeg
