#pragma once
// Erase: copies a tensor of up to kEraseMaxDims dimensions and fills boxes of it with a value, one
// for all elements or one per index along a channel dimension. The kernel only moves element
// bits (fill values are given already converted to the element type), so it works per element
// size; the CPU function is the reference of the CUDA one.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sluice/core/float16.h"

namespace sluice::kernels {

inline constexpr int kEraseMaxDims = 5;

// A half-open box [lo, hi) per dimension, already clipped to the sample; empty when any
// hi <= lo.
struct EraseBox {
  int64_t lo[kEraseMaxDims];
  int64_t hi[kEraseMaxDims];
};

// One sample. `boxes` and `fill` index the arrays passed beside the samples (the GPU keeps all
// samples' boxes and fill values in one array each). `fill` holds `num_fill` values as raw bits
// of the element type: one for every element, or one per index of `channel_dim`.
struct EraseSample {
  void* out;
  const void* in;
  int ndim;
  int64_t extent[kEraseMaxDims];
  int64_t volume;
  int64_t first_box;
  int num_boxes;
  int64_t first_fill;
  int num_fill;
  int channel_dim;  // -1 with a single fill value
};

// The raw bits of `v` converted to T as DALI converts its float fill values (a C++ conversion:
// integers truncate towards zero through a 32-bit integer, or a 64-bit one for 32- and 64-bit
// unsigned and 64-bit types, wrapping; what overflows that becomes its lowest value, as x86
// does).
template <typename T>
uint64_t erase_fill_bits(float v) {
  T t;
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, float16>) {
    t = static_cast<T>(v);
  } else if constexpr (sizeof(T) < 4 || std::is_same_v<T, int32_t>) {
    const bool fits = v >= -2147483648.0f && v < 2147483648.0f;
    t = static_cast<T>(fits ? static_cast<int32_t>(v) : INT32_MIN);
  } else {
    const bool fits = v >= -9223372036854775808.0f && v < 9223372036854775808.0f;
    t = static_cast<T>(fits ? static_cast<int64_t>(v) : INT64_MIN);
  }
  uint64_t bits = 0;
  std::memcpy(&bits, &t, sizeof(T));
  return bits;
}

// One sample on the calling thread; `boxes` and `fill` are the arrays the sample indexes.
void erase_cpu(const EraseSample& s, const EraseBox* boxes, const uint64_t* fill, size_t elem_size);

// CUDA: one launch for all samples (all three arrays in device memory); `max_volume` the largest
// sample. In-place when out == in.
void erase_gpu(const EraseSample* samples, int num_samples, const EraseBox* boxes,
               const uint64_t* fill, int64_t max_volume, size_t elem_size, void* stream);

}  // namespace sluice::kernels
