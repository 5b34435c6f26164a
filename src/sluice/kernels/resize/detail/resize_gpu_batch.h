#pragma once
// The batch descriptors of the CUDA resize and the host planner that lays them out. Plain C++:
// the planner (resize_gpu_batch.cc) is built without CUDA too, for the scratch-size queries and
// for the CPU emulation of the kernels in resize_gpu_emulation_test.cc.
//
// Note [GPU resize batch layout]
// One call resizes a batch of samples of different sizes with four operations on the stream:
//   1. copy the header (descriptors + block maps) from host scratch to device scratch;
//   2. coefficient kernel: one thread per output column / row of every sample writes that
//      pixel's taps and weights (detail::axis_entry, bit-identical to the CPU reference);
//   3. horizontal pass over the intermediate image (output columns x the input rows the
//      vertical pass reads), in tiles of 32 columns x 32 rows: a block of 32 x 8 threads, each
//      thread one column and 4 rows (amortising the block's sample lookup);
//   4. vertical pass over the output, in the same tiles, ending in the epilogue (uint8, float,
//      or normalised float / half, HWC or CHW, mirrored).
// Each launch covers the whole batch: blocks are numbered sample after sample, and a block finds
// its sample by binary search in the prefix sums *_block_begin (N + 1 entries each).
// Device scratch: [header][per sample: h_first, h_count, h_weights, v_first, v_count,
// v_weights, intermediate]; host scratch: the header, which must stay untouched until the copy
// has run (it is read asynchronously).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "sluice/kernels/resize/resample_filter.h"
#include "sluice/kernels/resize/resize_gpu.h"
#include "sluice/kernels/resize/resize_params.h"

namespace sluice::kernels::detail {

inline constexpr int kTileW = 32;         // tile width, pixels (one warp)
inline constexpr int kTileH = 8;          // warps per block (threadIdx.y)
inline constexpr int kRowsPerThread = 4;  // rows each thread computes, kTileH apart
inline constexpr int kTileRows = kTileH * kRowsPerThread;  // tile height, rows
inline constexpr int kCoefBlock = 256;  // threads per block of the coefficient kernel

// What the vertical pass writes.
enum class GpuEpilogue : uint8_t {
  kU8,          // uint8 HWC (fixed-point path)
  kF32,         // float HWC (float path)
  kNormHwcF32,  // normalised, fixed-point path, then float HWC
  kNormChwF32,
  kNormHwcF16,
  kNormChwF16,
};

inline bool epilogue_is_fixed(GpuEpilogue e) {
  return e != GpuEpilogue::kF32;
}

struct alignas(16) GpuSampleDesc {
  const uint8_t* in;
  int64_t in_stride;  // elements (bytes) between input rows
  void* out;
  int64_t out_stride;        // elements between output rows
  int64_t out_plane_stride;  // CHW: elements between channel planes
  void* tmp;                 // intermediate: uint8 (fixed point) or float
  int64_t tmp_stride;        // elements between intermediate rows (out_w * C)
  int32_t* h_first;
  int32_t* h_count;
  void* h_weights;  // int32 or float, tap-major: weights[j * h.out_count + x]
  int32_t* v_first;
  int32_t* v_count;
  void* v_weights;  // int32 or float: weights[y * v.max_taps + j]
  AxisResampling h;
  AxisResampling v;
  int32_t tmp_row_begin;  // input row of intermediate row 0
  int32_t tmp_rows;
  int32_t h_tiles_x;  // tiles per tile row of the horizontal pass
  int32_t v_tiles_x;
  float mean[4];
  float mul[4];
  float shift;
  int32_t mirror;  // flip the written output horizontally (fused path)
};

// Kernel argument (by value): device pointers into the header.
struct GpuBatch {
  const GpuSampleDesc* samples = nullptr;
  const int32_t* coef_block_begin = nullptr;
  const int32_t* h_block_begin = nullptr;
  const int32_t* v_block_begin = nullptr;
  int32_t num_samples = 0;
};

struct GpuPlan {
  GpuEpilogue epilogue = GpuEpilogue::kU8;
  size_t host_bytes = 0;    // header size
  size_t device_bytes = 0;  // header + tables + intermediates
  int64_t coef_blocks = 0;
  int64_t h_blocks = 0;
  int64_t v_blocks = 0;
  GpuBatch batch;  // set when the scratch was given
};

// Validate the batch and lay it out. With scratch.host and scratch.device null, only size the
// scratch; otherwise write the header into scratch.host with pointers into scratch.device.
// Throws InvalidArgument (messages start with `what` and name the sample) for bad samples,
// channels outside 1..4, unsupported types, short or misaligned scratch, or a batch of more than
// 2^31 - 1 blocks per pass.
GpuPlan plan_gpu_batch(std::span<const ResizeGpuSample> samples, int channels, DType out_type,
                       const GpuScratch& scratch, std::string_view what);
GpuPlan plan_gpu_batch(std::span<const ResizeNormalizeGpuSample> samples, int channels,
                       ResizeOutputLayout layout, DType out_type, const GpuScratch& scratch,
                       std::string_view what);

}  // namespace sluice::kernels::detail
