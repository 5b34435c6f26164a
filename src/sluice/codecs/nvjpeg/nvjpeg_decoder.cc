// NvjpegDecoder: construction, tear-down and accessors. The per-batch work is in
// nvjpeg_decode_batch.cc, the hardware lanes in nvjpeg_hw_lanes.cc.

#include "sluice/codecs/nvjpeg/nvjpeg_decoder.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "sluice/codecs/nvjpeg/nvjpeg_allocator.h"
#include "sluice/codecs/nvjpeg/nvjpeg_check.h"
#include "sluice/codecs/nvjpeg/nvjpeg_decoder_impl.h"
#include "sluice/codecs/nvjpeg/nvjpeg_hw_lanes.h"
#include "sluice/core/error.h"

namespace sluice::nvjpeg {

void release_check(nvjpegStatus_t s, const char* what) {
  if (s != NVJPEG_STATUS_SUCCESS) {
    std::cerr << "sluice: " << what
              << " failed during nvJPEG decoder tear-down: " << nvjpeg_status_name(s) << std::endl;
  }
}

void synchronize_quietly(const cuda::Stream& s) {
  if (!s.get()) return;
  cudaError_t e = cudaStreamSynchronize(static_cast<cudaStream_t>(s.get()));
  if (e != cudaSuccess) {
    std::cerr << "sluice: cudaStreamSynchronize failed during nvJPEG decoder tear-down: "
              << cudaGetErrorName(e) << std::endl;
  }
}

int output_channels(OutputColor c) {
  return c == OutputColor::kGray ? 1 : 3;
}

std::string_view route_name(DecodeRoute r) {
  switch (r) {
    case DecodeRoute::kHardware:
      return "hw";
    case DecodeRoute::kHybrid:
      return "hybrid";
    case DecodeRoute::kGpuHybrid:
      return "gpu-hybrid";
    case DecodeRoute::kHost:
      return "host";
    case DecodeRoute::kFallback:
      return "fallback";
    case DecodeRoute::kError:
      return "error";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------------
// Set-up

void NvjpegDecoder::Impl::init() {
  SLUICE_CHECK(opt_.num_thread_states >= 1, InvalidArgument, "num_thread_states must be >= 1, got ",
               opt_.num_thread_states);
  SLUICE_CHECK(opt_.hw_decoder_load >= 0.f && opt_.hw_decoder_load <= 1.f, InvalidArgument,
               "hw_decoder_load must be in [0, 1], got ", opt_.hw_decoder_load);
  SLUICE_CHECK(opt_.hybrid_huffman_threshold >= 0, InvalidArgument,
               "hybrid_huffman_threshold must be >= 0, got ", opt_.hybrid_huffman_threshold);
  SLUICE_CHECK(opt_.preallocate_width_hint >= 0 && opt_.preallocate_height_hint >= 0,
               InvalidArgument,
               "preallocate_width_hint and preallocate_height_hint must be >= 0, got ",
               opt_.preallocate_width_hint, " and ", opt_.preallocate_height_hint);
  SLUICE_CHECK(opt_.max_batch_size >= 1, InvalidArgument, "max_batch_size must be >= 1, got ",
               opt_.max_batch_size);
  SLUICE_CHECK(cuda::device_count() > 0, NotImplemented,
               "the nvJPEG decoder (device='mixed') needs a CUDA device, and none is available "
               "(no GPU or no driver); use device='cpu'");
  cuda::require_device(opt_.device);
  device_ok_ = true;
  cuda::DeviceGuard guard(opt_.device);

  dev_allocator_ = device_allocator(opt_.device);
  pinned_allocator_ = pinned_allocator(opt_.device);
  if (opt_.hw_decoder_load > 0.f) {
    init_hardware();
  } else {
    hw_status_ = "off: hw_decoder_load is 0";
  }
  if (!handle_) {
    SLUICE_NVJPEG_CHECK(nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, &dev_allocator_, &pinned_allocator_,
                                       handle_flags(), &handle_));
  }
  SLUICE_NVJPEG_CHECK(nvjpegSetDeviceMemoryPadding(opt_.device_memory_padding, handle_));
  SLUICE_NVJPEG_CHECK(nvjpegSetPinnedMemoryPadding(opt_.host_memory_padding, handle_));

  if (hw_enabled_) {
    // A balanced share may grow up to the whole batch.
    const int hw_max =
        opt_.balance_hw_load ? opt_.max_batch_size : hw_batch_size(opt_.max_batch_size);
    lanes_ = std::make_unique<HardwareLanes>(opt_, handle_, &dev_allocator_, &pinned_allocator_,
                                             handle_flags(), hw_max);
    lanes_->set_up(opt_.hardware_setup_in_background);
  }
  entry_ = cuda::Event(opt_.device);
  threads_.reserve(opt_.num_thread_states);
  for (int t = 0; t < opt_.num_thread_states; ++t) add_thread_state();
}

void NvjpegDecoder::Impl::init_hardware() {
  // One handle serves both paths: created for the hardware backend, it runs the batched
  // hardware decoder and also creates the hybrid decoders (as DALI does).
  nvjpegStatus_t s = nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, &dev_allocator_, &pinned_allocator_,
                                    handle_flags(), &handle_);
  if (s != NVJPEG_STATUS_SUCCESS) {
    handle_ = nullptr;
    hw_status_ = make_string("off: nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE) returned ",
                             nvjpeg_status_name(s), " (no hardware JPEG decoder on this device)");
    return;
  }
  unsigned engines = 0;
  unsigned cores = 0;
  s = nvjpegGetHardwareDecoderInfo(handle_, &engines, &cores);
  if (s != NVJPEG_STATUS_SUCCESS || engines == 0) {
    hw_status_ =
        s != NVJPEG_STATUS_SUCCESS
            ? make_string("off: nvjpegGetHardwareDecoderInfo returned ", nvjpeg_status_name(s))
            : std::string("off: nvjpegGetHardwareDecoderInfo reports 0 engines");
    nvjpegHandle_t h = handle_;
    handle_ = nullptr;
    SLUICE_NVJPEG_CHECK(nvjpegDestroy(h));
    return;
  }
  hw_enabled_ = true;
  hw_engines_ = engines;
  hw_cores_ = std::max(cores, 1u);
  hw_status_ = make_string("on: ", engines, " engine(s) x ", cores, " core(s)");
}

void NvjpegDecoder::Impl::add_thread_state() {
  // Owned by threads_ before anything is created, so that a failure half-way is cleaned up.
  threads_.push_back(std::make_unique<ThreadState>());
  ThreadState& ts = *threads_.back();
  SLUICE_NVJPEG_CHECK(nvjpegJpegStreamCreate(handle_, &ts.probe_stream));
  SLUICE_NVJPEG_CHECK(
      nvjpegDecoderCreate(handle_, NVJPEG_BACKEND_HYBRID, &ts.decoders[kHybridCpu]));
  SLUICE_NVJPEG_CHECK(
      nvjpegDecoderCreate(handle_, NVJPEG_BACKEND_GPU_HYBRID, &ts.decoders[kHybridGpu]));
  SLUICE_NVJPEG_CHECK(nvjpegBufferDeviceCreate(handle_, &dev_allocator_, &ts.device_buffer));
  for (PageState& page : ts.pages) {
    SLUICE_NVJPEG_CHECK(nvjpegJpegStreamCreate(handle_, &page.jpeg_stream));
    SLUICE_NVJPEG_CHECK(nvjpegBufferPinnedCreate(handle_, &pinned_allocator_, &page.pinned));
    for (int b = 0; b < kNumHybridBackends; ++b) {
      SLUICE_NVJPEG_CHECK(nvjpegDecoderStateCreate(handle_, ts.decoders[b], &page.states[b]));
    }
    page.done = cuda::Event(opt_.device);
  }
  ts.stream = cuda::Stream(opt_.device, opt_.stream_priority);
  ts.join = cuda::Event(opt_.device);
}

int NvjpegDecoder::Impl::hw_batch_size(int decodable) const {
  if (!hw_enabled_ || decodable <= 0) return 0;
  // DALI's CalcHwDecoderBatchSize: round(load * n), rounded up to whole engine cores, capped.
  int n = static_cast<int>(std::lround(load_.load(std::memory_order_relaxed) * decodable));
  int tail = n % static_cast<int>(hw_cores_);
  if (tail > 0) n += static_cast<int>(hw_cores_) - tail;
  return std::min(n, decodable);
}

void NvjpegDecoder::Impl::grow_params(size_t n) {
  params_.reserve(n);
  while (params_.size() < n) {
    nvjpegDecodeParams_t p = nullptr;
    SLUICE_NVJPEG_CHECK(nvjpegDecodeParamsCreate(handle_, &p));
    params_.push_back(p);
  }
}

// ---------------------------------------------------------------------------------------------
// Tear-down

NvjpegDecoder::Impl::~Impl() {
  if (lanes_) lanes_->join_setup();
  if (!device_ok_) return;  // nothing was created
  int previous = -1;
  bool switched = cudaGetDevice(&previous) == cudaSuccess && previous != opt_.device &&
                  cudaSetDevice(opt_.device) == cudaSuccess;
  // No work may be in flight on buffers that are about to be freed.
  if (lanes_) lanes_->synchronize_quietly();
  for (auto& ts : threads_) synchronize_quietly(ts->stream);

  for (auto& ts : threads_) {
    for (PageState& page : ts->pages) {
      for (nvjpegJpegState_t& st : page.states) {
        if (st) release_check(nvjpegJpegStateDestroy(st), "nvjpegJpegStateDestroy");
      }
    }
    for (nvjpegJpegDecoder_t& d : ts->decoders) {
      if (d) release_check(nvjpegDecoderDestroy(d), "nvjpegDecoderDestroy");
    }
    for (PageState& page : ts->pages) {
      if (page.jpeg_stream) {
        release_check(nvjpegJpegStreamDestroy(page.jpeg_stream), "nvjpegJpegStreamDestroy");
      }
      if (page.pinned) {
        release_check(nvjpegBufferPinnedDestroy(page.pinned), "nvjpegBufferPinnedDestroy");
      }
    }
    if (ts->probe_stream) {
      release_check(nvjpegJpegStreamDestroy(ts->probe_stream), "nvjpegJpegStreamDestroy");
    }
    if (ts->device_buffer) {
      release_check(nvjpegBufferDeviceDestroy(ts->device_buffer), "nvjpegBufferDeviceDestroy");
    }
  }
  for (nvjpegDecodeParams_t p : params_) {
    release_check(nvjpegDecodeParamsDestroy(p), "nvjpegDecodeParamsDestroy");
  }
  lanes_.reset();  // their states, parameters, handles and staging buffers
  if (handle_) release_check(nvjpegDestroy(handle_), "nvjpegDestroy");
  threads_.clear();  // streams and events, with the device still current
  if (switched) cudaSetDevice(previous);
}

// ---------------------------------------------------------------------------------------------
// Public interface

NvjpegDecoder::NvjpegDecoder(const NvjpegDecoderOptions& options)
    : impl_(std::make_unique<Impl>(options)) {
  impl_->init();
}

NvjpegDecoder::~NvjpegDecoder() = default;

void NvjpegDecoder::decode(std::span<const DecodeRequest> batch, OutputColor color,
                           ThreadPool& pool, cuda::StreamHandle stream,
                           std::span<DecodeResult> results, const HostDecode* host) {
  impl_->decode(batch, color, pool, stream, results, host);
}

bool NvjpegDecoder::hardware_enabled() const {
  return impl_->lanes_ && !impl_->lanes_->failed();  // lanes_: with hw_enabled_
}

std::string NvjpegDecoder::hardware_status() const {
  if (!impl_->lanes_) return impl_->hw_status_;
  return impl_->lanes_->status(impl_->hw_status_);
}

int NvjpegDecoder::hardware_cores_per_engine() const {
  return impl_->hw_enabled_ ? static_cast<int>(impl_->hw_cores_) : 0;
}

int NvjpegDecoder::hw_batch_size(int decodable) const {
  return impl_->hw_batch_size(decodable);
}

NvjpegDecoderStats NvjpegDecoder::stats() const {
  NvjpegDecoderStats s;
  {
    std::lock_guard<std::mutex> lk(impl_->stats_mu_);
    s = impl_->stats_;
  }
  s.hardware_load = impl_->hw_enabled_ ? impl_->load_.load(std::memory_order_relaxed) : 0.0;
  return s;
}

const NvjpegDecoderOptions& NvjpegDecoder::options() const {
  return impl_->opt_;
}

}  // namespace sluice::nvjpeg
