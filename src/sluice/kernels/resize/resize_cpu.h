#pragma once
// CPU resampling of one HWC image (see Note [Pillow-compatible resampling] in
// resample_filter.cc). It is the reference the CUDA kernels are tested against and the kernel of
// the CPU fn.resize.
//
// Types: uint8 or float input, uint8 or float output, any channel count. uint8 -> uint8 uses
// Pillow's fixed point and a uint8 intermediate (bit-identical to Pillow's Image.resize); every
// other combination uses float coefficients, a float intermediate and float accumulation, and
// rounds (to nearest, ties to even) and saturates only when the output is uint8.
//
// uint8 -> uint8 with 1..4 channels runs vectorised kernels on x86-64 (SSE2, or AVX2 where the
// CPU has it: detail/resample_fixed_point.h); their results equal the scalar loops
// (detail/resize_cpu_reference.h), which run everything else, bit for bit.
//
// Scratch: the coefficient tables and the intermediate image live in caller memory; query the
// size with resize_cpu_scratch_size() and keep the buffer between calls, so that a steady state
// does no allocation. The size depends on the CPU's instruction sets (not only the arguments).
//
// Thread safety: the functions are reentrant; concurrent calls need separate scratch buffers.

#include <cstddef>
#include <cstdint>
#include <span>

#include "sluice/kernels/resize/resize_params.h"

namespace sluice::kernels {

// Bytes of scratch resize_cpu() needs for these arguments (data pointers are not read).
// Throws InvalidArgument for arguments resize_cpu() would refuse.
size_t resize_cpu_scratch_size(const ConstHwcImage& in, const HwcImage& out,
                               const ResizeSampleParams& params);

// Resamples `in` into `out`. out.height / out.width must equal params.geometry.out_h / out_w
// and the channel counts must match; an empty output does nothing. `scratch` must hold at least
// resize_cpu_scratch_size() bytes; its contents are not preserved.
// Throws InvalidArgument, naming the argument, for unsupported types, mismatched shapes, null
// data, strides shorter than a row, an empty input with a non-empty output, or a window or
// extent make_axis_resampling() refuses; and when the scratch is too small.
void resize_cpu(const ConstHwcImage& in, const HwcImage& out, const ResizeSampleParams& params,
                std::span<std::byte> scratch);

}  // namespace sluice::kernels
