#pragma once
// Tuned constants of the image decoders (one place; each with why).

namespace sluice {

// rest_decoder="auto" hands what the hardware decoder does not take to the CPU codec from this
// many pipeline threads on, else to nvJPEG's hybrid path. From 8 threads the CPU codec next to the
// hardware decoder beats the hybrid path by 15-20% on an H100 host (bench/RESULTS.md section 3);
// with fewer it has not the cores.
inline constexpr int kRestDecoderCpuMinThreads = 8;

// hw_decoder_load when not given: the share of each batch for the hardware JPEG decoder, where
// the hardware and the rest of the batch finish together on the H100 host
// (nvjpeg::NvjpegDecoderOptions::hw_decoder_load says how it was chosen).
inline constexpr double kDefaultHwDecoderLoad = 0.7;

}  // namespace sluice
