#pragma once
// Tuned constants of the image decoders (one place; each with why). The mixed decoder's
// hardware share when not given is nvJPEG's (nvjpeg::policy::kHwDecoderLoad).

#include "sluice/codecs/nvjpeg/nvjpeg_policy.h"

namespace sluice {

// rest_decoder="auto" hands what the hardware decoder does not take to the CPU codec from this
// many pipeline threads on, else to nvJPEG's hybrid path: from 8 threads the CPU codec next to the
// hardware decoder beats the hybrid path on an H100 host (bench/RESULTS.md#gpu-rest-decoder);
// with fewer it has not the cores.
inline constexpr int kRestDecoderCpuMinThreads = 8;

}  // namespace sluice
