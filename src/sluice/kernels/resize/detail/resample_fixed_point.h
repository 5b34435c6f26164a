#pragma once
// Vectorised uint8 -> uint8 resampling in Pillow's fixed point (Note [Pillow-compatible
// resampling] in resample_filter.cc): the kernel of resize_cpu() for 1..4 channels on x86-64.
// Results equal the scalar reference (resize_cpu_reference.h) bit for bit; Note [Exact fixed point
// in 16-bit lanes] in resample_fixed_point.cc says why.
//
// Thread safety: reentrant; concurrent calls need separate scratch.

#include <cstddef>
#include <cstdint>

#include "sluice/kernels/resize/resample_filter.h"

namespace sluice::kernels::detail {

// Instruction sets with an implementation: SSE2 (the x86-64 baseline, always there) and AVX2
// (picked at run time when the CPU has it).
enum class FixedPointIsa : uint8_t { kSse2, kAvx2 };

// Whether this build has the vectorised kernels for `isa` and the CPU runs them.
bool fixed_point_isa_available(FixedPointIsa isa);
// The best available one; only meaningful where fixed_point_resampler_supports() holds.
FixedPointIsa fixed_point_best_isa();
// Whether this build resamples `channels` channels here (x86-64, 1..4 channels).
bool fixed_point_resampler_supports(int64_t channels);

// One uint8 HWC image and the resampling of both axes, validated by the caller (resize_cpu's
// checks): h.out_count x v.out_count output pixels, `rows` = axis_source_range(v).
struct FixedPointJob {
  const uint8_t* in = nullptr;
  int64_t in_stride = 0;  // bytes
  int64_t in_width = 0;
  uint8_t* out = nullptr;
  int64_t out_stride = 0;  // bytes
  int64_t channels = 0;
  AxisResampling h, v;
  SourceRange rows;
};

// Scratch bytes resample_fixed_point() needs for `job` with `isa` (data pointers not read). The
// scratch must start 64-byte aligned.
size_t fixed_point_scratch_bytes(const FixedPointJob& job, FixedPointIsa isa);

// Resamples job.in into job.out. `isa` must be available and the channel count supported.
void resample_fixed_point(const FixedPointJob& job, FixedPointIsa isa, std::byte* scratch);

}  // namespace sluice::kernels::detail
