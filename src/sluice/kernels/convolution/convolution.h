#pragma once
// Convolutions along one axis of a sample, the building block of gaussian_blur, laplacian and
// filter: DALI's arithmetic (float accumulation over the window in order, then DALI's
// conversion), so the CPU code, the CUDA kernels and DALI 2.4 agree bit for bit. Plain data;
// the per-element code is convolution_element.h, shared by both sides.

#include <cstdint>
#include <string>
#include <vector>

#include "sluice/core/dtype.h"

namespace sluice::kernels::conv {

// How an index outside [0, n) is brought back in (DALI's border names).
enum class Border : uint8_t {
  kReflect101,   // dcb|abcd|cba
  kReflect1001,  // dcba|abcd|dcba
  kWrap,         // bcd|abcd|abc
  kClamp,        // aaa|abcd|ddd
  kConstant,     // the fill value
};
Border parse_border(const std::string& name);

// One pass: the sample seen as [outer][extent][inner], convolved along `extent` with `window`
// (`size` taps; tap k reads index x - anchor + k): out = convert(scale * sum_k in * window[k]
// [+ add]), where `add`, when given, is a FLOAT image of the output's shape (it may be `out`).
struct AxisPass {
  const void* in = nullptr;
  void* out = nullptr;
  const float* window = nullptr;
  const float* add = nullptr;
  int64_t outer = 1, extent = 1, inner = 1;
  int32_t size = 1, anchor = 0;
  float scale = 1.0f;
  float fill = 0.0f;
  Border border = Border::kReflect101;
};

// A sample of a separable convolution: `outer` independent blocks (frames, leading channels),
// each of `axes` spatial extents (outermost first) and `channels` interleaved channels.
struct SeparableShape {
  int64_t outer = 1;
  int axes = 2;
  int64_t extent[3] = {1, 1, 1};
  int64_t channels = 1;
  int64_t volume() const;
};

// The passes of a separable convolution, innermost axis first, as DALI runs them: the first
// reads `in` (in_type), the last writes `out` (out_type, multiplied by `scale`), the others go
// through `tmp[0]` / `tmp[1]` (mid_type(in_type) elements, shape.volume() each; tmp[1] only for
// three axes). windows[a] / sizes[a]: the window of spatial axis a (centred).
std::vector<AxisPass> separable_passes(const void* in, void* out, void* const tmp[2],
                                       const SeparableShape& shape, const float* const windows[3],
                                       const int sizes[3], float scale);

// The type the passes between the first and the last keep: FLOAT64 for FLOAT64 input (DALI
// multiplies such values in double before adding them to its float sum), else FLOAT.
DType mid_type(DType in_type);

// Element types: UINT8, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64, FLOAT16, FLOAT,
// FLOAT64 in and out.
bool conv_type_supported(DType t);

// Runs one pass on the calling thread. From FLOAT or FLOAT64 to any type; from other types to
// themselves, FLOAT or FLOAT64.
void convolve_axis_cpu(const AxisPass& p, DType in_type, DType out_type);

// Runs separable_passes()'s passes on the calling thread.
void separable_cpu(const std::vector<AxisPass>& passes, DType in_type, DType out_type);

}  // namespace sluice::kernels::conv
