#pragma once
// Batched resampling on the GPU: a batch of HWC uint8 images of different sizes in one launch
// per pass, and the fused resize + crop_mirror_normalize of the training graph. Results equal
// the CPU reference (resize_cpu.h, resize_normalize_cpu.h) bit for bit by construction (same
// coefficient math, integer or explicitly rounded float arithmetic in the same order; see Note
// [Bit-identical coefficients]); the tests hold them to the tolerances of the brief.
//
// Work per call, in stream order (Note [GPU resize batch layout] in detail/resize_gpu_batch.h):
// one host-to-device copy of the descriptors, a coefficient kernel, the horizontal pass and the
// vertical pass. No allocation and no synchronisation: the caller provides
//  * host scratch (pinned, so that the copy is asynchronous) for the descriptors. The copy reads
//    it after the call returns: do not modify it before the stream has passed this call (record
//    an event after the call and wait for it before reusing the buffer);
//  * device scratch for the descriptors, coefficient tables and the intermediate image.
// Query both sizes first with the *_scratch_sizes function for the same samples.
//
// Memory traffic (DRAM, ideal caching) per sample with C channels, output w x h, and R input
// rows read (R = in_h unless a window crops): input R * in_w * C bytes; intermediate
// 2 * R * w * C bytes (uint8 path) or 8 * R * w * C (float output); output h * w * C * (1, 2 or
// 4) bytes; coefficient tables ~4 * (w * taps_x + h * taps_y) bytes (L2-resident). For a
// 500x375 RGB image resized to 224x224: 0.56 MB in, 0.5 MB intermediate, 0.15 MB out (uint8) or
// 0.6 MB out (fused float32) -- about 1.2 / 1.7 MB per image.
//
// Thread safety: reentrant; concurrent calls need separate scratch.

#include <cstddef>
#include <cstdint>
#include <span>

#include "sluice/core/dtype.h"
#include "sluice/kernels/resize/resize_params.h"

namespace sluice::kernels {

// One image of a GPU resize batch.
struct ResizeGpuSample {
  const uint8_t* in = nullptr;  // device memory, HWC uint8
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t in_row_stride = 0;  // bytes between input rows; 0 means in_w * channels
  void* out = nullptr;        // device memory, dense out_h x out_w x channels of the output type
  ResizeSampleParams params;  // output extent, source window, filters
};

// One image of a fused resize + crop_mirror_normalize batch: the image is resized with `params`
// (a full resize, e.g. 256 on the shorter side), `crop` of the result is mirrored when asked,
// normalised, and written densely to `out` as crop.height x crop.width x channels (HWC) or
// channels x crop.height x crop.width (CHW).
struct ResizeNormalizeGpuSample {
  const uint8_t* in = nullptr;  // device memory, HWC uint8
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t in_row_stride = 0;  // bytes between input rows; 0 means in_w * channels
  void* out = nullptr;        // device memory
  ResizeSampleParams params;
  ResizeCrop crop;      // default: the whole resized image
  bool mirror = false;  // flip the written crop horizontally
  ResizeNormalizeParams norm;
};

struct GpuScratchSizes {
  size_t host_bytes = 0;    // descriptors (pinned host memory)
  size_t device_bytes = 0;  // descriptors, coefficient tables, intermediate image
};

// Caller memory for one call; both pointers 16-byte aligned (cudaMalloc / pinned allocations
// are).
struct GpuScratch {
  void* host = nullptr;
  size_t host_bytes = 0;
  void* device = nullptr;
  size_t device_bytes = 0;
};

// Scratch needs of resize_gpu for these samples (pointers are not read). Throws what resize_gpu
// would throw for bad samples.
GpuScratchSizes resize_gpu_scratch_sizes(std::span<const ResizeGpuSample> samples, int channels,
                                         DType out_type);

// Resamples every sample (see resample_filter.h for the filters): uint8 -> uint8 in Pillow's
// fixed point (uint8 intermediate), or uint8 -> float (float intermediate). Samples with an
// empty output are skipped.
// Throws InvalidArgument, naming the sample, for channels outside 1..4, an output type other
// than UINT8 / FLOAT, null pointers, strides shorter than a row, empty inputs with non-empty
// outputs, windows or extents make_axis_resampling() refuses, or short / misaligned scratch;
// CudaError if a launch fails; NotImplemented in builds without CUDA.
void resize_gpu(std::span<const ResizeGpuSample> samples, int channels, DType out_type,
                const GpuScratch& scratch, void* stream);

GpuScratchSizes resize_normalize_gpu_scratch_sizes(
    std::span<const ResizeNormalizeGpuSample> samples, int channels, ResizeOutputLayout layout,
    DType out_type);

// Fused resize + crop_mirror_normalize: the vertical pass rounds each resized value to uint8
// (exactly as resize_gpu to UINT8 would store it) and writes fma(v - mean, scale / stddev,
// shift) (see ResizeNormalizeParams) as FLOAT or FLOAT16 (round to nearest even) in `layout`. The
// result equals resize_cpu to uint8 followed by crop_mirror_normalize_u8_cpu. Throws as resize_gpu,
// and InvalidArgument for a crop outside the resized image, an output type other than FLOAT /
// FLOAT16, or non-finite / zero-stddev normalisation.
void resize_normalize_gpu(std::span<const ResizeNormalizeGpuSample> samples, int channels,
                          ResizeOutputLayout layout, DType out_type, const GpuScratch& scratch,
                          void* stream);

}  // namespace sluice::kernels
