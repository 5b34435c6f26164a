#pragma once
// The tuned constants of the nvJPEG decoder, each with why it has its value; most are defaults
// of NvjpegDecoderOptions (the option in parentheses). The measurements behind them are in
// bench/RESULTS.md#gpu. No nvjpeg.h here: the public header includes
// this one.

#include <cstddef>
#include <cstdint>

namespace sluice::nvjpeg::policy {

// Share of a batch for the hardware decoder (hw_decoder_load): it lies in the broad range of
// shares that give the same images/s on the H100 host, between DALI's legacy default (0.65) and
// nvImageCodec's (0.9).
inline constexpr double kHwDecoderLoad = 0.7;

// Note [Balancing the hardware share] (nvjpeg_decode_batch.cc): the fraction of the way from
// the current share to the equal-time share that one batch moves, which damps the noise in the
// times measured on one batch.
inline constexpr double kBalanceStep = 0.25;
// The bounds of a balanced share: both parts keep some images, so both keep being measured.
inline constexpr double kMinBalancedLoad = 0.05;
inline constexpr double kMaxBalancedLoad = 0.95;

// Hardware lanes when neither hardware_lanes nor SLUICE_NVJPEG_HW_LANES sets them: concurrent
// nvjpegDecodeBatchedEx calls slow each other down, so with the mixed stage on a thread of its
// own one lane is fastest on the H100.
inline constexpr int kHardwareLanes = 1;

// Pixels (ROI width x ROI bottom row) above which a baseline image takes GPU Huffman decoding
// (hybrid_huffman_threshold): only large images repay decoding Huffman on the GPU (DALI's
// default).
inline constexpr int64_t kHybridHuffmanThreshold = 1'000'000;

// nvJPEG's buffer paddings (device_memory_padding, host_memory_padding): a slightly larger image
// then reuses its buffers instead of reallocating, and nvJPEG's frees synchronize the device
// (Note [nvJPEG frees]); DALI's defaults.
inline constexpr size_t kDeviceMemoryPadding = size_t(16) << 20;
inline constexpr size_t kHostMemoryPadding = size_t(8) << 20;

// The largest batch expected (max_batch_size): it only sizes the hardware decoder's
// preallocation, so a larger batch still works (it may allocate).
inline constexpr int kMaxBatchSize = 256;

}  // namespace sluice::nvjpeg::policy
