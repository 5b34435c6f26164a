#pragma once
// Histogram equalization of UINT8 channels, OpenCV's equalizeHist arithmetic (which DALI's CPU
// equalize calls): the lookup table maps a value to round((cdf(v) - cdf(first)) * 255 /
// (pixels - cdf(first))) in float, where `first` is the smallest value present. The two
// host-device functions below are the whole arithmetic, so the CPU and CUDA kernels agree bit
// for bit.

#include <cmath>
#include <cstdint>

#include "sluice/kernels/common/host_device.h"

namespace sluice::kernels {

constexpr int kEqualizeBins = 256;

// One channel of an image: `pixels` values `stride` bytes apart (the channel's offset already
// added to the pointers).
struct EqualizeChannel {
  const uint8_t* in;
  uint8_t* out;
  int64_t pixels;
  int stride;
};

// The factor of a channel whose smallest value occurs `first_count` times (< pixels).
SLUICE_HOST_DEVICE inline float equalize_scale(int64_t pixels, int64_t first_count) {
  return div_rn(static_cast<float>(kEqualizeBins - 1), static_cast<float>(pixels - first_count));
}

// The table entry of a value whose cumulative count, less the smallest value's, is `above_first`;
// rounded half to even and saturated, as OpenCV's saturate_cast.
SLUICE_HOST_DEVICE inline uint8_t equalize_entry(int64_t above_first, float scale) {
  const float v = rintf(mul_rn(static_cast<float>(above_first), scale));
  return static_cast<uint8_t>(v < 0.f ? 0.f : v > 255.f ? 255.f : v);
}

// One channel on the calling thread.
void equalize_cpu(const EqualizeChannel& c);

// CUDA: all channels of a batch in two launches per 65535 channels (descriptors in device
// memory); `max_pixels` the largest channel (< 2^32), `hists` device memory for
// 256 * num_channels counters.
void equalize_gpu(const EqualizeChannel* channels, int num_channels, int64_t max_pixels,
                  uint32_t* hists, void* stream);

}  // namespace sluice::kernels
