#pragma once
// N-dimensional slices whose window may reach outside the input (DALI's fn.slice and fn.pad):
// each output coordinate maps to an input coordinate through a border rule, or to a fill value.
// The output may convert the element type. Windows inside the input with the input's type are
// plain strided copies (strided_copy.h); this kernel handles the rest.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "sluice/core/dtype.h"
#include "sluice/core/float16.h"

namespace sluice::kernels {

inline constexpr int kMaxSliceDims = 16;

// Where a coordinate outside [0, n) reads from (DALI's out_of_bounds_policy).
enum class SliceBorder : uint8_t {
  kConstant,     // the fill value
  kClamp,        // the nearest edge element
  kReflect1001,  // mirrored, the edge repeated: ... 1 0 | 0 1 2 ... n-1 | n-1 n-2 ...
  kReflect101,   // mirrored about the edge element: ... 2 1 | 0 1 2 ... n-1 | n-2 ...
  kWrap,         // periodic
};

struct SliceDesc {
  void* out = nullptr;
  const void* in = nullptr;
  int ndim = 0;
  int64_t in_shape[kMaxSliceDims] = {};
  int64_t out_shape[kMaxSliceDims] = {};
  int64_t anchor[kMaxSliceDims] = {};  // input coordinate of the output's first element
  // Fill values, in the output type: one, or one per element of dimension `channel_dim`.
  const void* fill = nullptr;
  int channel_dim = -1;  // -1: fill[0] everywhere
};

// The input coordinate that output coordinate `i` (already offset by the anchor) reads, or -1
// for the fill value.
SLUICE_HOST_DEVICE inline int64_t slice_border_index(int64_t i, int64_t n, SliceBorder b) {
  if (i >= 0 && i < n) return i;
  if (n <= 0 || b == SliceBorder::kConstant) return -1;
  switch (b) {
    case SliceBorder::kClamp:
      return i < 0 ? 0 : n - 1;
    case SliceBorder::kWrap: {
      const int64_t m = i % n;
      return m < 0 ? m + n : m;
    }
    case SliceBorder::kReflect1001: {
      int64_t m = i % (2 * n);
      if (m < 0) m += 2 * n;
      return m < n ? m : 2 * n - 1 - m;
    }
    default: {  // kReflect101
      if (n == 1) return 0;
      int64_t m = i % (2 * n - 2);
      if (m < 0) m += 2 * n - 2;
      return m < n ? m : 2 * n - 2 - m;
    }
  }
}

// DALI's element conversion in a slice: floats to integers saturate and then truncate toward
// zero (1.5 -> 1, 300.7 -> 255 in uint8); integers saturate; floats round to the target's
// precision.
template <typename Out, typename In>
SLUICE_HOST_DEVICE inline Out slice_convert(In v) {
  if constexpr (std::is_same_v<Out, In>) {
    return v;
  } else if constexpr (std::is_same_v<In, float16>) {
    return slice_convert<Out>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<Out, float16>) {
    return float16(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<Out>) {
    return static_cast<Out>(v);
  } else if constexpr (std::is_floating_point_v<In>) {
    constexpr double lo = static_cast<double>(std::numeric_limits<Out>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<Out>::max());
    const double d = static_cast<double>(v);
    if (!(d == d)) return Out{0};
    return d <= lo ? std::numeric_limits<Out>::min()
                   : (d >= hi ? std::numeric_limits<Out>::max() : static_cast<Out>(d));
  } else if constexpr (std::is_signed_v<In> == std::is_signed_v<Out>) {
    if constexpr (std::is_signed_v<In>) {
      if (v < std::numeric_limits<Out>::min()) return std::numeric_limits<Out>::min();
    }
    if (v > std::numeric_limits<Out>::max()) return std::numeric_limits<Out>::max();
    return static_cast<Out>(v);
  } else if constexpr (std::is_signed_v<In>) {  // signed to unsigned
    if (v < 0) return Out{0};
    using U = std::make_unsigned_t<In>;
    return static_cast<U>(v) > std::numeric_limits<Out>::max() ? std::numeric_limits<Out>::max()
                                                               : static_cast<Out>(v);
  } else {  // unsigned to signed
    using U = std::make_unsigned_t<Out>;
    return v > static_cast<U>(std::numeric_limits<Out>::max()) ? std::numeric_limits<Out>::max()
                                                               : static_cast<Out>(v);
  }
}

// DALI's conversion of a float fill value to the output type: C++'s static_cast as x86 does it
// (integers through a 64-bit integer, so -1.5 -> 255 in uint8 and 70000 -> 4464 in int16).
// Writes dtype_size(t) bytes to `out`.
void slice_fill_value(double v, DType t, void* out);

// The element types fn.slice takes and produces (DALI's: no bool, no bfloat16).
bool slice_type_supported(DType t);

// Slices one sample: desc.out gets out_shape elements of type `out_type` read from desc.in
// (type `in_type`) through `border`.
void slice_cpu(const SliceDesc& desc, DType in_type, DType out_type, SliceBorder border);

// CUDA: one launch for all samples (descriptors and their fill values in device memory);
// `max_n` the largest output volume.
void slice_gpu(const SliceDesc* descs, int num_samples, int64_t max_n, DType in_type,
               DType out_type, SliceBorder border, void* stream);

}  // namespace sluice::kernels
