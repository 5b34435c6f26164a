#pragma once
// Batched CUDA crop_mirror_normalize: uint8 HWC images in, FLOAT / FLOAT16 / UINT8 / INT8 out in
// HWC or CHW, per-sample window and mirror, out-of-bounds fill, pad_output; one launch per
// batch. The semantics and the arithmetic are those of crop_mirror_normalize_cpu
// (crop_mirror_normalize.h), its reference: the same operations in the same order
// (crop_math.h), so the outputs are identical bit for bit for every output type.
//
// Usage per batch (no allocation, no synchronisation):
//   1. table = make_cmn_channel_table(params, C) once (or per sample for per-sample mean/std);
//   2. per sample, make_cmn_gpu_sample(input view, output pointer, window, mirror, table);
//   3. crop_mirror_normalize_gpu(samples, table, pinned staging, device descriptors, stream):
//      copies the descriptors into the caller's pinned staging buffer, from there to the
//      caller's device buffer on `stream`, and launches one kernel on `stream`.
// Both buffers hold cmn_gpu_descriptor_bytes(n) bytes; reuse the staging buffer only once the
// work on `stream` has passed this call (record an event), the device buffer only after the
// kernel. Inputs and outputs must stay valid until the kernel has run.
// Descriptors may also be built in place in the staging buffer (samples.data() ==
// pinned_staging): the host copy is then skipped.
//
// Work split: a thread produces a run of 16 bytes of output along a row (4 floats, 8 halves or
// 16 bytes per channel), reading those HWC input pixels once; CHW stores go to each channel plane
// as 16-byte vector stores where the address is aligned (rows whose length is a multiple of the
// run, e.g. 224), else element by element; HWC stores likewise.
//
// Limits: every sample of a launch has the same channel count (1..kCmnGpuMaxChannels), output
// type, layout and pad_output (those of `table`); at most kCropGpuMaxSamples samples; extents
// below 2^31. Thread safety: stateless; concurrent calls with distinct buffers are safe.

#include <cstddef>
#include <cstdint>
#include <span>

#include "sluice/kernels/crop/crop_gpu_types.h"
#include "sluice/kernels/crop/crop_mirror_normalize.h"
#include "sluice/kernels/crop/crop_window.h"
#include "sluice/kernels/crop/image_view.h"

namespace sluice {

// CmnGpuSample (crop_gpu_types.h) is the per-sample descriptor.

// Describes one sample. `window` has passed apply_out_of_bounds_policy. Throws InvalidArgument
// (naming `sample` when >= 0) when the input is not HWC, its channel count differs from the
// table's or exceeds kCmnGpuMaxChannels, or shapes are negative / too large.
CmnGpuSample make_cmn_gpu_sample(ImageView<const uint8_t> in, void* out, const CropWindow& window,
                                 bool mirror, const CmnChannelTable& table, int64_t sample = -1);

// Bytes of the pinned staging buffer and of the device descriptor buffer for `num_samples`.
size_t cmn_gpu_descriptor_bytes(int64_t num_samples);

// Launches the batch (see the header comment). `table` gives the channel count, output channel
// count, output type and layout shared by the samples. Throws InvalidArgument for bad
// arguments, CudaError on CUDA failures.
void crop_mirror_normalize_gpu(std::span<const CmnGpuSample> samples, const CmnChannelTable& table,
                               void* pinned_staging, void* device_descriptors, void* stream);

}  // namespace sluice
