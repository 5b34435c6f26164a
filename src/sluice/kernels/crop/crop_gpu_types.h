#pragma once
// Per-sample descriptors of the CUDA kernels of kernels/crop, and the internal launch entry points
// that the .cu files define. Plain C++17 on purpose: the .cu files include only this header (and
// crop_math.h), so they compile whatever C++ standard nvcc is given. Users include crop_gpu.h or
// crop_mirror_normalize_gpu.h instead.

#include <cstddef>
#include <cstdint>

#include "sluice/core/float16.h"  // SLUICE_HOST_DEVICE

namespace sluice {

inline constexpr int kCropGpuMaxSamples = 65535;  // grid.y limit
inline constexpr int kCropGpuMaxFillChannels = 16;
inline constexpr int kCmnGpuMaxChannels = 4;

// One sample of a crop_transform_gpu launch, as the kernel reads it from device memory.
struct CropGpuSample {
  const void* in = nullptr;  // device, dense in_height x in_width x channels in `layout`
  void* out = nullptr;       // device, dense (transposed) window x channels in `layout`
  int32_t in_height = 0, in_width = 0, channels = 0;
  int32_t win_y = 0, win_x = 0, win_h = 0, win_w = 0;  // window in input pixels
  uint8_t layout = 0;                                  // ImageLayout: 0 HWC, 1 CHW
  uint8_t transpose = 0, flip_x = 0, flip_y = 0;
  int32_t fill_count = 1;                            // 1: fill_bits[0] for all, else per channel
  uint32_t fill_bits[kCropGpuMaxFillChannels] = {};  // element bits, zero-extended
};

// One sample of a crop_mirror_normalize_gpu launch, as the kernel reads it from device memory.
struct CmnGpuSample {
  const uint8_t* in = nullptr;  // device, dense HWC in_height x in_width x channels
  void* out = nullptr;          // device, dense cmn_output_shape(window, table)
  int32_t in_height = 0, in_width = 0;
  int32_t win_y = 0, win_x = 0, win_h = 0, win_w = 0;  // window in input pixels
  int32_t mirror = 0;
  float shift = 0.0f;
  float mean[kCmnGpuMaxChannels] = {};
  float k[kCmnGpuMaxChannels] = {};
  float fill[kCmnGpuMaxChannels] = {};  // per output channel, output space; kernel converts
};

namespace crop_detail {

// Output element types of the CMN kernel.
enum class CmnGpuOut : int { kFloat32, kFloat16, kUInt8, kInt8 };

// Launch one kernel over `num_samples` descriptors already in device memory; `max_items` is the
// largest per-sample work count (see the .cu files). Defined in crop_gpu.cu and
// crop_mirror_normalize_gpu.cu; CUDA builds only. Throw CudaError on launch failures.
void launch_crop_transform(const CropGpuSample* device_samples, int64_t num_samples,
                           int64_t max_items, size_t elem_size, void* stream);
void launch_crop_mirror_normalize(const CmnGpuSample* device_samples, int64_t num_samples,
                                  int64_t max_items, CmnGpuOut out, int channels, int out_channels,
                                  bool planar, void* stream);

// Work items per sample, as the kernels count them.
SLUICE_HOST_DEVICE inline int64_t crop_transform_items(const CropGpuSample& s, size_t elem_size) {
  const int64_t per_item = 16 / static_cast<int64_t>(elem_size);
  const int64_t total = int64_t{s.win_h} * s.win_w * s.channels;
  return (total + per_item - 1) / per_item;
}
SLUICE_HOST_DEVICE inline int64_t cmn_items(const CmnGpuSample& s, size_t out_elem_size) {
  const int64_t k = 16 / static_cast<int64_t>(out_elem_size);  // pixels per item
  return int64_t{s.win_h} * ((int64_t{s.win_w} + k - 1) / k);
}

}  // namespace crop_detail
}  // namespace sluice
