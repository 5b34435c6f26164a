// One batch of NvjpegDecoder (BatchDecode, nvjpeg_decode_batch.h): parse and route
// (nvjpeg_parse.cc), decode (hybrid path on the pool while the calling thread submits the
// hardware sub-batch to the lanes, nvjpeg_hw_lanes.cc), join. The overview is in
// nvjpeg_decoder.h.

#include "sluice/codecs/nvjpeg/nvjpeg_decode_batch.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <mutex>

#include "sluice/codecs/nvjpeg/nvjpeg_allocator.h"
#include "sluice/codecs/nvjpeg/nvjpeg_check.h"
#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"
#include "sluice/codecs/nvjpeg/nvjpeg_decoder_impl.h"
#include "sluice/codecs/nvjpeg/nvjpeg_policy.h"
#include "sluice/core/error.h"

namespace sluice::nvjpeg {
namespace {

nvjpegOutputFormat_t to_nvjpeg_format(OutputColor c) {
  switch (c) {
    case OutputColor::kRGB:
      return NVJPEG_OUTPUT_RGBI;
    case OutputColor::kBGR:
      return NVJPEG_OUTPUT_BGRI;
    case OutputColor::kGray:
      return NVJPEG_OUTPUT_Y;
  }
  return NVJPEG_OUTPUT_RGBI;
}

}  // namespace

void set_decoded(DecodeResult& r, DecodeRoute route) {
  r.route = route;
  r.message.clear();
}
void set_fallback(DecodeResult& r, std::string msg) {
  r.route = DecodeRoute::kFallback;
  r.message = std::move(msg);
}
void set_error(DecodeResult& r, std::string msg) {
  r.route = DecodeRoute::kError;
  r.message = std::move(msg);
}
void set_parse_failure(DecodeResult& r, const char* phase, nvjpegStatus_t s,
                       const std::string& note) {
  if (s == NVJPEG_STATUS_ALLOCATOR_FAILURE) return set_failure(r, phase, s, note);
  set_fallback(r, make_string(phase, ": ", nvjpeg_status_name(s), note));
}
void set_failure(DecodeResult& r, const char* phase, nvjpegStatus_t s, const std::string& note) {
  std::string msg = make_string(phase, ": ", nvjpeg_status_name(s), note);
  if (nvjpeg_status_needs_fallback(s)) {
    set_fallback(r, std::move(msg));
  } else if (s == NVJPEG_STATUS_ALLOCATOR_FAILURE) {
    set_error(r, make_string(msg, ": ", take_allocation_failure()));
    r.out_of_memory = true;
  } else {
    set_error(r, std::move(msg));
  }
}

void NvjpegDecoder::Impl::decode(std::span<const DecodeRequest> batch, OutputColor color,
                                 ThreadPool& pool, cuda::StreamHandle stream,
                                 std::span<DecodeResult> results, const HostDecode* host) {
  SLUICE_CHECK(results.size() == batch.size(), InvalidArgument, "nvJPEG decode: ", batch.size(),
               " requests but ", results.size(), " result slots");
  SLUICE_CHECK(batch.size() <= static_cast<size_t>(INT_MAX), InvalidArgument,
               "nvJPEG decode: batch of ", batch.size(), " samples is too large");
  SLUICE_CHECK(stream != nullptr, InvalidArgument,
               "nvJPEG decode needs the caller's CUDA stream (the legacy default stream is never "
               "used)");
  SLUICE_CHECK(pool.num_threads() <= opt_.num_thread_states, InvalidArgument,
               "nvJPEG decode: the thread pool has ", pool.num_threads(),
               " threads but the decoder has num_thread_states=", opt_.num_thread_states);
  if (batch.empty()) return;
  cuda::DeviceGuard guard(opt_.device);
  BatchDecode(*this, batch, color, results).run(pool, stream, host);
}

NvjpegDecoder::Impl::BatchDecode::BatchDecode(Impl& decoder, std::span<const DecodeRequest> batch,
                                              OutputColor color, std::span<DecodeResult> results)
    : d_(decoder),
      requests_(batch.data()),
      results_(results.data()),
      batch_size_(static_cast<int>(batch.size())),
      format_(to_nvjpeg_format(color)),
      channels_(output_channels(color)) {
  d_.grow_params(batch.size());
  samples_.assign(batch.size(), SampleState{});
  for (DecodeResult& r : results) {
    r = DecodeResult{};
    r.message = "not processed";  // overwritten by every path; kept if a CUDA failure aborts
  }
  active_.assign(d_.threads_.size(), 0);

  // Note [Hardware set-up in the background] (nvjpeg_hw_lanes.h)
  hw_possible_ = d_.hw_ready() && d_.hw_batch_size(batch_size_) > 0;
  if (hw_possible_) {  // Note [Hardware staging]
    size_t total = 0;
    for (const DecodeRequest& r : batch) total += staged_size(r.size);
    staging_ = d_.lanes_->begin_staging(total);
  }
}

void NvjpegDecoder::Impl::BatchDecode::run(ThreadPool& pool, cuda::StreamHandle stream,
                                           const HostDecode* host) {
  d_.entry_.record(stream);
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  const auto t_start = Clock::now();
  auto t_decode = t_start;
  try {
    {  // 1. Parse every sample; stage hardware candidates.
      std::atomic<int> next{0};
      ThreadPool::TaskGroup group(pool);
      launch(group, pool, next, batch_size_, [this](int i, int slot) { parse_sample(slot, i); });
      group.wait();
    }
    route();  // 2.
    if (host && !hybrid_list_.empty()) host->prepare(hybrid_list_);
    t_decode = Clock::now();
    {  // 3. Hybrid (or host) samples on the pool; meanwhile the hardware sub-batch from here.
      std::atomic<int> next{0};
      std::atomic<Clock::rep> rest_end{t_decode.time_since_epoch().count()};
      ThreadPool::TaskGroup group(pool);
      launch(group, pool, next, static_cast<int>(hybrid_list_.size()),
             [this, host, &rest_end](int k, int slot) {
               const int i = hybrid_list_[k];
               if (host) {
                 host->decode(i, slot);
                 set_decoded(results_[i], DecodeRoute::kHost);
               } else {
                 begin_slot(slot, /*after_hardware=*/false);
                 decode_hybrid(slot, i, /*retry=*/false);
               }
               const Clock::rep now = Clock::now().time_since_epoch().count();
               Clock::rep seen = rest_end.load(std::memory_order_relaxed);
               while (seen < now && !rest_end.compare_exchange_weak(seen, now)) {
               }
             });
      const auto t_hw = Clock::now();
      submit_hardware();
      hw_submit_ms_ = ms_since(t_hw);
      const double hw_ms = ms_since(t_decode);
      group.wait();
      const auto rest = Clock::time_point(Clock::duration(rest_end.load()));
      if (d_.opt_.balance_hw_load && host) {
        balance(hw_ms, std::chrono::duration<double, std::milli>(rest - t_decode).count());
      }
    }
    if (!retry_list_.empty()) {  // 3b. nvJPEG rejected the hardware sub-batch as a whole.
      std::atomic<int> next{0};
      ThreadPool::TaskGroup group(pool);
      launch(group, pool, next, static_cast<int>(retry_list_.size()), [this](int k, int slot) {
        begin_slot(slot, /*after_hardware=*/true);
        decode_hybrid(slot, retry_list_[k], /*retry=*/true);
      });
      group.wait();
    }
  } catch (...) {
    // CUDA itself failed. Still order whatever was queued before the caller's next work.
    try {
      join(stream);
    } catch (...) {
    }
    throw;
  }
  join(stream);  // 4.
  parse_ms_ = std::chrono::duration<double, std::milli>(t_decode - t_start).count();
  decode_ms_ = ms_since(t_decode);
  account();
}

// Note [Balancing the hardware share]
// The hardware sub-batch costs its submitting thread a fixed time per image, the rest costs the
// pool's threads theirs; the batch is done when the slower of the two is. The best share is where
// both take the same time, and it depends on the pool (fewer threads for the rest: a larger
// share), the host and the load (the submission slows down as more cores are busy)
// (bench/RESULTS.md#gpu-balance). So with
// balance_hw_load every batch with both parts measures each part's time per image and moves the
// share a quarter of the way towards the share that would have made them equal. The share stays
// within [0.05, 0.95], so that both parts keep being measured.
// Only where the rest is the caller's CPU decoding (HostDecode): the hybrid path's tasks end when
// their GPU phases are queued, not done, so its time looks short and the share drifted too low
// (bench/RESULTS.md#tried-hybrid-balance).
// The step and the bounds are nvjpeg_policy.h's.
void NvjpegDecoder::Impl::BatchDecode::balance(double hw_ms, double rest_ms) {
  if (!hw_.queued || !hw_failure_.empty() || hybrid_list_.empty()) return;
  const double hw_per_image = hw_ms / static_cast<double>(hw_list_.size());
  const double rest_per_image = rest_ms / static_cast<double>(hybrid_list_.size());
  if (hw_per_image <= 0 || rest_per_image <= 0) return;
  const double equal = rest_per_image / (hw_per_image + rest_per_image);
  const double load = d_.load_.load(std::memory_order_relaxed);
  d_.load_.store(std::clamp(load + policy::kBalanceStep * (equal - load), policy::kMinBalancedLoad,
                            policy::kMaxBalancedLoad),
                 std::memory_order_relaxed);
}

void NvjpegDecoder::Impl::BatchDecode::launch(ThreadPool::TaskGroup& group, ThreadPool& pool,
                                              std::atomic<int>& next, int count,
                                              const std::function<void(int, int)>& body) {
  int tasks = std::min(count, pool.num_threads());
  for (int t = 0; t < tasks; ++t) {
    group.submit([this, &next, count, body](int slot) {
      SLUICE_ENFORCE(slot >= 0 && slot < static_cast<int>(d_.threads_.size()), "pool thread index ",
                     slot, " has no nvJPEG state");
      cuda::DeviceGuard guard(d_.opt_.device);
      for (int k = next.fetch_add(1); k < count; k = next.fetch_add(1)) body(k, slot);
    });
  }
}

void NvjpegDecoder::Impl::BatchDecode::submit_hardware() {
  if (hw_list_.empty()) return;
  std::vector<HwSample> samples(hw_list_.size());
  for (size_t k = 0; k < hw_list_.size(); ++k) {
    const int i = hw_list_[k];
    const SampleState& st = samples_[i];
    HwSample& h = samples[k];
    h.staged = st.staged;
    h.length = requests_[i].size;
    h.dst = requests_[i].dst;
    h.pitch = size_t(st.out_w) * size_t(channels_);
    h.params = d_.params_[i];
    h.roi = st.roi;
    h.use_roi = st.use_roi;
  }
  d_.lanes_->submit(samples, format_, d_.entry_, hw_);
  for (const HwSubmission::Part& part : hw_.parts) {
    if (part.failure.empty()) {
      for (int k = part.begin; k < part.end; ++k) {
        set_decoded(results_[hw_list_[k]], DecodeRoute::kHardware);
      }
      continue;
    }
    hw_failure_ = part.failure;
    for (int k = part.begin; k < part.end; ++k) {
      const int i = hw_list_[k];
      retry_list_.push_back(i);
      samples_[i].plan = Plan::kHybrid;
    }
  }
}

void NvjpegDecoder::Impl::BatchDecode::begin_slot(int slot, bool after_hardware) {
  ThreadState& ts = *d_.threads_[slot];
  if (!active_[slot]) {
    // Work queued on the caller's stream before decode() (e.g. producing the destinations).
    cuda::stream_wait_event(ts.stream.get(), d_.entry_.get());
    active_[slot] = 1;
  }
  // A retried sample's destination may have been partly written by the hardware stream.
  if (after_hardware) cuda::stream_wait_event(ts.stream.get(), d_.lanes_->done());
}

void NvjpegDecoder::Impl::BatchDecode::decode_hybrid(int slot, int i, bool retry) {
  ThreadState& ts = *d_.threads_[slot];
  const DecodeRequest& req = requests_[i];
  DecodeResult& res = results_[i];
  const SampleState& s = samples_[i];
  // hw_failure_ is written while the first hybrid round runs: read it in the retry round only.
  const std::string note = retry ? make_string(" (retried after ", hw_failure_, ")") : "";

  // Note [Double buffering]
  const int current = ts.next_page;
  ts.next_page ^= 1;
  PageState& page = ts.pages[current];
  PageState& previous = ts.pages[current ^ 1];  // this thread's previous sample
  page.done.synchronize();

  nvjpegStatus_t st = nvjpegJpegStreamParse(d_.handle_, req.data, req.size, 0, 0, page.jpeg_stream);
  if (st != NVJPEG_STATUS_SUCCESS) return set_parse_failure(res, "nvjpegJpegStreamParse", st, note);
  int b = kHybridCpu;
  if (s.gpu_huffman) {
    // GPU Huffman decoding handles fewer stream layouts: ask first, else keep CPU Huffman.
    int unsupported = 1;
    st = nvjpegDecoderJpegSupported(ts.decoders[kHybridGpu], page.jpeg_stream, d_.params_[i],
                                    &unsupported);
    if (st == NVJPEG_STATUS_SUCCESS && unsupported == 0) b = kHybridGpu;
  }
  nvjpegJpegDecoder_t decoder = ts.decoders[b];
  nvjpegJpegState_t state = page.states[b];
  // The buffers are attached before every use, as DALI does: both backends' states share them,
  // so this never depends on a state remembering a buffer the other state has since resized.
  st = nvjpegStateAttachPinnedBuffer(state, page.pinned);
  if (st != NVJPEG_STATUS_SUCCESS) {
    return set_failure(res, "nvjpegStateAttachPinnedBuffer", st, note);
  }
  st = nvjpegDecodeJpegHost(d_.handle_, decoder, state, d_.params_[i], page.jpeg_stream);
  if (st != NVJPEG_STATUS_SUCCESS) return set_failure(res, "nvjpegDecodeJpegHost", st, note);

  auto stream = static_cast<cudaStream_t>(ts.stream.get());
  previous.done.synchronize();
  const char* phase = "nvjpegStateAttachDeviceBuffer";
  st = nvjpegStateAttachDeviceBuffer(state, ts.device_buffer);
  if (st == NVJPEG_STATUS_SUCCESS) {
    phase = "nvjpegDecodeJpegTransferToDevice";
    st = nvjpegDecodeJpegTransferToDevice(d_.handle_, decoder, state, page.jpeg_stream, stream);
  }
  if (st == NVJPEG_STATUS_SUCCESS) {
    phase = "nvjpegDecodeJpegDevice";
    nvjpegImage_t image{};
    image.channel[0] = req.dst;
    image.pitch[0] = size_t(s.out_w) * size_t(channels_);
    st = nvjpegDecodeJpegDevice(d_.handle_, decoder, state, &image, stream);
  }
  // Whatever was queued, succeeded or not, must finish before this page is written again.
  page.done.record(ts.stream.get());
  if (st != NVJPEG_STATUS_SUCCESS) return set_failure(res, phase, st, note);
  set_decoded(res, b == kHybridGpu ? DecodeRoute::kGpuHybrid : DecodeRoute::kHybrid);
}

void NvjpegDecoder::Impl::BatchDecode::join(cuda::StreamHandle stream) {
  for (size_t slot = 0; slot < active_.size(); ++slot) {
    if (!active_[slot]) continue;
    ThreadState& ts = *d_.threads_[slot];
    ts.join.record(ts.stream.get());
    cuda::stream_wait_event(stream, ts.join.get());
  }
  if (hw_.queued) cuda::stream_wait_event(stream, d_.lanes_->done());
}

void NvjpegDecoder::Impl::BatchDecode::account() {
  NvjpegDecoderStats d;
  for (int i = 0; i < batch_size_; ++i) {
    switch (results_[i].route) {
      case DecodeRoute::kHardware:
        ++d.hardware;
        break;
      case DecodeRoute::kHybrid:
        ++d.hybrid;
        break;
      case DecodeRoute::kGpuHybrid:
        ++d.gpu_hybrid;
        break;
      case DecodeRoute::kHost:
        ++d.host;
        break;
      case DecodeRoute::kFallback:
        ++d.fallback;
        break;
      case DecodeRoute::kError:
        ++d.failed;
        break;
    }
  }
  std::lock_guard<std::mutex> lk(d_.stats_mu_);
  NvjpegDecoderStats& stats = d_.stats_;
  stats.parse_ms += parse_ms_;
  stats.decode_ms += decode_ms_;
  stats.hardware_submit_ms += hw_submit_ms_;
  stats.hardware_wait_ms += hw_.wait_ms;
  stats.batches += 1;
  stats.samples += static_cast<uint64_t>(batch_size_);
  stats.hardware += d.hardware;
  stats.hybrid += d.hybrid;
  stats.gpu_hybrid += d.gpu_hybrid;
  stats.host += d.host;
  stats.fallback += d.fallback;
  stats.failed += d.failed;
  if (!hw_failure_.empty()) {
    stats.hardware_batch_failures += 1;
    stats.last_hardware_failure = hw_failure_;
  }
}

}  // namespace sluice::nvjpeg
