#pragma once
// Batched JPEG decoding with nvJPEG: the engine behind decoders.image* with device="mixed".
//
// One NvjpegDecoder per mixed decoder operator instance, for one device. decode() takes a batch
// of encoded JPEGs in host memory and writes each image, HWC interleaved uint8 with tightly
// packed rows, to a caller-provided device buffer, following DALI's strategy
// (nvjpeg_decoder_decoupled_api.h; dali-notes.md §3):
//   1. Parse (pool threads): nvjpegJpegStreamParseHeader per sample; streams nvJPEG cannot
//      or should not decode are reported as kFallback (Note [What falls back] in
//      nvjpeg_parse.cc); nvjpegDecodeBatchedSupportedEx (with the sample's ROI) marks hardware
//      candidates.
//   2. Route: candidates sorted by chroma subsampling then size, largest first; the first
//      hw_batch_size(n) go to the hardware engines (the share hw_decoder_load of the batch,
//      rounded up to a multiple of the cores per engine), the rest to the hybrid path.
//   3. Decode, concurrently: pool threads run the hybrid path (host Huffman decode for
//      NVJPEG_BACKEND_HYBRID, or GPU Huffman with NVJPEG_BACKEND_GPU_HYBRID for baseline images
//      over hybrid_huffman_threshold pixels, then transfer and device phases, double-buffered,
//      each thread on its own CUDA stream) while the calling thread submits the hardware
//      sub-batch (nvjpegDecodeBatchedEx) on the hardware stream.
//   4. Join: every internal stream that did work is joined into the caller's stream with
//      events. The internal streams first wait for the work queued on the caller's stream
//      before decode() was called.
//
// Per-sample outcomes are reported in DecodeResult, never thrown: one bad image never fails the
// batch. If nvJPEG rejects the hardware sub-batch as a whole, its samples are decoded again on
// the hybrid path, one by one, after the hardware stream's work. decode() throws only for
// invalid arguments and for failures of CUDA itself (CudaError), after joining its streams.
//
// Stream contract: when the work recorded on `stream` by decode() completes, every destination
// of a decoded sample holds its image. Destinations of kFallback / kError samples may have been
// partially written by internal streams; those writes are ordered before anything the caller
// queues on `stream` after decode() returns (e.g. the upload of the CPU fallback's image).
// Inputs may be freed when decode() returns. decode() blocks only on host work and on GPU work
// it queued itself: the previous call's hardware batch (before reusing the hardware state) and
// each thread's previous sample (Note [Double buffering] in nvjpeg_decoder_impl.h).
//
// EXIF orientation is not applied: outputs and ROIs are in stored orientation.
//
// Thread safety: one decode() at a time per decoder (it owns per-thread nvJPEG states and
// streams). stats(), hardware_*() and options() may be called concurrently with decode().
// The pool may be shared with other work, but decode() must not run inside one of the pool's
// own tasks: it submits tasks to the pool and waits for them.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sluice/codecs/nvjpeg/nvjpeg_policy.h"
#include "sluice/cuda/cuda_api.h"

namespace sluice {
class ThreadPool;
}

namespace sluice::nvjpeg {

struct NvjpegDecoderOptions {
  int device = 0;
  // CUDA priority of the decoder's own streams (hardware lanes, hybrid threads); lower is
  // more urgent, as for cudaStreamCreateWithPriority. The mixed operators pass the pipeline's.
  int stream_priority = 0;
  // Per-thread nvJPEG states to create: at least pool.num_threads() of every pool passed to
  // decode(); pass ThreadPool::num_slots(). Unused states cost a few handles, no buffers.
  int num_thread_states = 1;
  // Share of each batch sent to the hardware decoder (A100/H100 NVJPG engines), in [0, 1]; 0
  // disables it. What limits the hardware path is not the engines but nvJPEG's submission, a
  // fixed CPU time per image on one thread (nvjpegDecodeBatchedEx; more submitting threads slow
  // each other down), so the rest must take a share large enough to finish at the same time
  // (bench/RESULTS.md#gpu-hw-ceiling, #gpu-hw-share). The default is nvjpeg_policy.h's.
  float hw_decoder_load = static_cast<float>(policy::kHwDecoderLoad);
  // Start from hw_decoder_load, then move the share after every batch towards the one at which
  // the hardware submission and the rest of the batch take the same time. That share depends on
  // how many threads decode the rest and how fast they are (Note [Balancing the hardware share]
  // in nvjpeg_decode_batch.cc). Only with a HostDecode (decode()), whose tasks end when their
  // images do; the mixed operators set it when hw_decoder_load is not given and rest_decoder is
  // "cpu".
  bool balance_hw_load = false;
  // Baseline images (or ROIs, counted as ROI width x ROI bottom row) larger than this many
  // pixels use GPU Huffman decoding (NVJPEG_BACKEND_GPU_HYBRID) when nvJPEG supports it for the
  // stream; others decode Huffman on the CPU (NVJPEG_BACKEND_HYBRID). DALI's default.
  int64_t hybrid_huffman_threshold = policy::kHybridHuffmanThreshold;
  // nvjpegSetDeviceMemoryPadding / nvjpegSetPinnedMemoryPadding: nvJPEG rounds its buffers up
  // to multiples of these so that a slightly larger image does not reallocate (DALI's defaults).
  size_t device_memory_padding = policy::kDeviceMemoryPadding;
  size_t host_memory_padding = policy::kHostMemoryPadding;
  // Size hints for nvjpegDecodeBatchedPreAllocate of the hardware decoder (0: none; DALI calls
  // it even then, as it enables the decoder's memory pool).
  int preallocate_width_hint = 0;
  int preallocate_height_hint = 0;
  // The largest batch decode() will see (sizes the hardware preallocation; larger batches
  // work, they may allocate).
  int max_batch_size = policy::kMaxBatchSize;
  // Let nvJPEG convert CMYK / YCCK streams with its "simple subtractive scheme". Off by default
  // so that such files take the CPU fallback and get the CPU codec's conversion on every route.
  bool allow_cmyk = false;
  // Interpolate chroma like libjpeg's "fancy" upsampling (NVJPEG_FLAGS_UPSAMPLING_WITH_
  // INTERPOLATION); off: chroma is replicated, nvJPEG's default and DALI's.
  bool fancy_upsampling = false;
  // Hardware sub-batches submitted concurrently, each with its own batched state, handle and
  // stream. nvjpegDecodeBatchedEx spends its time on the calling thread (CPU time equals wall
  // time), and concurrent calls slow each other down: with the mixed stage on a thread of its
  // own, one lane is fastest on the H100 (bench/RESULTS.md#gpu-lanes). 0: SLUICE_NVJPEG_HW_LANES
  // or policy::kHardwareLanes (1). The lanes are nvjpeg_hw_lanes.h's.
  int hardware_lanes = 0;
  // Create the hardware decoder's states on a background thread; until they are ready
  // (bench/RESULTS.md#gpu-setup) batches use the hybrid path. The constructor then returns sooner, so a
  // pipeline's first batch comes sooner; the mixed decoder operators set it.
  bool hardware_setup_in_background = false;
};

enum class OutputColor : uint8_t { kRGB, kBGR, kGray };  // NVJPEG_OUTPUT_RGBI / BGRI / Y
int output_channels(OutputColor c);

// A region of interest in stored (un-rotated: EXIF orientation is not applied) coordinates.
struct Roi {
  int x = 0;
  int y = 0;
  int w = 0;
  int h = 0;
};

struct DecodeRequest {
  const uint8_t* data = nullptr;  // encoded bytes, host memory (pageable is fine)
  size_t size = 0;
  std::optional<Roi> roi;  // whole image when empty; must lie inside the image
  // Device memory on the decoder's device: out_h rows of out_w * channels bytes, where out_* is
  // the ROI's size (or the image's). A sample whose output exceeds dst_bytes is an error.
  uint8_t* dst = nullptr;
  size_t dst_bytes = 0;
};

enum class DecodeRoute : uint8_t {
  kHardware,   // nvJPEG hardware engines (batched)
  kHybrid,     // Huffman on a CPU thread, IDCT and colour conversion on the GPU
  kGpuHybrid,  // Huffman, IDCT and colour conversion on the GPU
  kHost,       // given to the caller's HostDecode (see decode()); its outcome is the caller's
  kFallback,   // not decoded: the caller must decode it with the CPU codec (message says why)
  kError,      // not decoded: the caller raises DecodeError with the message
};
// "hw", "hybrid", "gpu-hybrid", "host", "fallback", "error"
std::string_view route_name(DecodeRoute r);

struct DecodeResult {
  DecodeRoute route = DecodeRoute::kError;
  // The stream as nvJPEG parsed it (zeros where parsing failed): stored size, components,
  // chroma subsampling ("444", "420", "gray", ...), progressive or not.
  int width = 0;
  int height = 0;
  int components = 0;
  std::string_view subsampling = "";
  bool progressive = false;
  // For kFallback and kError: what happened (the nvJPEG phase and status). Empty otherwise.
  std::string message;
  // kError because a Sluice pool could not give nvJPEG memory (ALLOCATOR_FAILURE): not the
  // file's fault, so the caller raises OutOfMemory rather than DecodeError (or a skip).
  bool out_of_memory = false;

  bool decoded() const { return route <= DecodeRoute::kHost; }
};

// Cumulative counts over the decoder's lifetime. hardware + hybrid + gpu_hybrid + host + fallback
// + failed == samples.
struct NvjpegDecoderStats {
  uint64_t batches = 0;
  uint64_t samples = 0;
  uint64_t hardware = 0;
  uint64_t hybrid = 0;
  uint64_t gpu_hybrid = 0;
  uint64_t host = 0;
  uint64_t fallback = 0;
  uint64_t failed = 0;
  // Hardware sub-batches that nvJPEG rejected as a whole (their samples were re-decoded on the
  // hybrid path and are counted there).
  uint64_t hardware_batch_failures = 0;
  std::string last_hardware_failure;  // what nvJPEG said the last time (empty: never)
  // Wall time of decode()'s phases, summed over batches (milliseconds): parsing and routing,
  // hybrid decoding and hardware submission together, the hardware submission alone, and the
  // part of it spent waiting for the engines' previous batch and for the work the caller queued
  // before decode() (Note [Hardware writes ignore stream order]).
  double parse_ms = 0;
  double decode_ms = 0;
  double hardware_submit_ms = 0;
  double hardware_wait_ms = 0;
  // The share of the next batch for the hardware decoder (hw_decoder_load unless balanced).
  double hardware_load = 0;
};

// Decodes the samples that do not go to the hardware decoder in place of nvJPEG's hybrid path,
// e.g. with the CPU codec, which makes no CUDA call per image (the hybrid path makes about seven,
// and CUDA calls from many threads slow the hardware submission and the training thread down).
// prepare(samples) runs on decode()'s calling thread once the batch is routed, with the batch
// indices given to it; decode(sample, slot) then runs on the pool, concurrently with the
// hardware submission. decode must not throw: its outcome is the caller's to keep.
struct HostDecode {
  std::function<void(std::span<const int> samples)> prepare;
  std::function<void(int sample, int slot)> decode;
};

class NvjpegDecoder {
 public:
  // Throws NotImplemented without a CUDA device, InvalidArgument for bad options or device ids,
  // CudaError / OutOfMemory when nvJPEG or CUDA set-up fails. The hardware decoder is used when
  // hw_decoder_load > 0 and nvJPEG reports engines (see hardware_status()).
  explicit NvjpegDecoder(const NvjpegDecoderOptions& options);
  ~NvjpegDecoder();
  NvjpegDecoder(const NvjpegDecoder&) = delete;
  NvjpegDecoder& operator=(const NvjpegDecoder&) = delete;

  // Decodes `batch` into the requests' destinations; results[i] describes batch[i].
  // `color` applies to the whole batch (one output format per hardware batch). `stream`: the
  // caller's CUDA stream (non-null). CPU work runs on `pool`, whose num_threads() must not
  // exceed options().num_thread_states. With `host`, the samples that would take the hybrid path
  // go to it instead and are reported as kHost. The destinations are written after the work
  // queued on `stream` before the call, and work queued on it after the call sees them.
  void decode(std::span<const DecodeRequest> batch, OutputColor color, ThreadPool& pool,
              cuda::StreamHandle stream, std::span<DecodeResult> results,
              const HostDecode* host = nullptr);

  bool hardware_enabled() const;
  // "7 engines x 5 cores" or why the hardware decoder is off.
  std::string hardware_status() const;
  int hardware_cores_per_engine() const;  // 0 when the hardware decoder is off
  // How many of `decodable` samples a batch sends to the hardware decoder.
  int hw_batch_size(int decodable) const;

  NvjpegDecoderStats stats() const;
  const NvjpegDecoderOptions& options() const;

 private:
  struct Impl;  // nvjpeg_decoder_impl.h
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::nvjpeg
