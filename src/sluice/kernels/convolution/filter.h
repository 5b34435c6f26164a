#pragma once
// A direct (non-separable) correlation of a sample with a 2-D or 3-D float kernel: the filter
// operator. The arithmetic is OpenCV's filter2D, which DALI's CPU filter calls: a float sum over
// the kernel's non-zero taps in row-major order (fused multiply-adds where DALI's OpenCV uses
// 8-lane vectors: FLOAT input), rounded to integers with ties to even. The
// per-element code (filter_element.h) is shared by the CPU code and the CUDA kernel.

#include <cstdint>

#include "sluice/core/dtype.h"
#include "sluice/core/float16.h"  // SLUICE_HOST_DEVICE
#include "sluice/kernels/convolution/convolution.h"

namespace sluice::kernels::conv {

struct FilterSample {
  const void* in = nullptr;
  void* out = nullptr;
  const float* kernel = nullptr;  // k_extent[0] x ... x k_extent[axes - 1], row-major
  const void* fill = nullptr;     // one input-type value for Border::kConstant; null: 0
  int64_t outer = 1;              // independent blocks (frames, leading channels)
  int64_t in_extent[3] = {1, 1, 1};
  int64_t out_extent[3] = {1, 1, 1};  // smaller than in_extent in "valid" mode
  int64_t channels = 1;
  int32_t k_extent[3] = {1, 1, 1};
  int32_t anchor[3] = {0, 0, 0};  // the kernel tap over the output position
  int32_t axes = 2;
  Border border = Border::kReflect101;
  SLUICE_HOST_DEVICE int64_t out_volume() const {
    return outer * out_extent[0] * out_extent[1] * out_extent[2] * channels;
  }
};

// Element types: UINT8, UINT16, INT16, FLOAT in; output the input's type or FLOAT.
bool filter_type_supported(DType t);

// Runs one sample on the calling thread.
void filter_cpu(const FilterSample& s, DType in_type, DType out_type);

// One launch for a batch: `samples` in device memory (pointers into device memory);
// `max_elements` the largest out_volume(). CUDA builds only.
void filter_gpu(const FilterSample* samples, int num_samples, int64_t max_elements, DType in_type,
                DType out_type, void* stream);

}  // namespace sluice::kernels::conv
