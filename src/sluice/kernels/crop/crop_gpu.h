#pragma once
// Batched CUDA crop / flip / EXIF orientation: one launch copies a window of every sample of a
// batch, optionally flipped and transposed, with fill values for pixels outside the image. The
// GPU twin of crop_transform_cpu (crop_cpu.h), which is its reference: results are identical
// bit for bit (the kernel only moves elements; fill values are converted on the host).
//
// Usage per batch (no allocation, no synchronisation):
//   1. describe each sample with make_crop_gpu_sample() (device pointers in the views);
//   2. crop_transform_gpu(samples, elem size, pinned staging, device descriptors, stream): it
//      copies the descriptors into the caller's pinned staging buffer, copies that to the
//      caller's device buffer on `stream`, and launches one kernel on `stream`.
// Both buffers hold crop_gpu_descriptor_bytes(n) bytes; the staging buffer may be reused only
// after the work on `stream` has passed this call (record an event), the device buffer only
// after the kernel has run. Inputs and outputs must stay valid until then as well.
// Descriptors may also be built in place in the staging buffer (samples.data() ==
// pinned_staging): the host copy is then skipped.
//
// Limits: at most kCropGpuMaxSamples samples per launch; image extents below 2^31; per-channel
// fill values for at most kCropGpuMaxFillChannels channels (one value for all works for any
// channel count). Element sizes 1, 2 and 4 bytes (uint8, int8, uint16, int16, float16, float).
//
// CropGpuSample (crop_gpu_types.h) is the per-sample descriptor. The launch functions exist
// only in CUDA builds; the descriptor builders always.
// Thread safety: stateless; concurrent calls with distinct buffers are safe.

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "sluice/kernels/crop/crop_gpu_types.h"
#include "sluice/kernels/crop/crop_window.h"
#include "sluice/kernels/crop/image_view.h"

namespace sluice {

static_assert(static_cast<int>(ImageLayout::kHWC) == 0 && static_cast<int>(ImageLayout::kCHW) == 1,
              "CropGpuSample::layout encodes ImageLayout");

// Validates like crop_transform_cpu (InvalidArgument, naming `sample` when >= 0) and converts the
// fill values to T. `in` / `out` hold device pointers.
template <typename T>
CropGpuSample make_crop_gpu_sample(std::type_identity_t<ImageView<const T>> in, ImageView<T> out,
                                   const CropWindow& window, ImageTransform transform,
                                   std::span<const float> fill_values, int64_t sample = -1);

// fn.flip and EXIF orientation as crop_transform samples of the whole image.
template <typename T>
CropGpuSample make_flip_gpu_sample(std::type_identity_t<ImageView<const T>> in, ImageView<T> out,
                                   bool horizontal, bool vertical, int64_t sample = -1) {
  return make_crop_gpu_sample<T>(in, out, CropWindow{0, 0, in.height, in.width},
                                 ImageTransform{false, horizontal, vertical}, {}, sample);
}
template <typename T>
CropGpuSample make_exif_orientation_gpu_sample(std::type_identity_t<ImageView<const T>> in,
                                               ImageView<T> out, int orientation,
                                               int64_t sample = -1) {
  return make_crop_gpu_sample<T>(in, out, CropWindow{0, 0, in.height, in.width},
                                 exif_orientation_transform(orientation), {}, sample);
}

// Bytes of the pinned staging buffer and of the device descriptor buffer for `num_samples`.
size_t crop_gpu_descriptor_bytes(int64_t num_samples);

// Launches the batch (see the header comment). `elem_size` is sizeof the element type the
// samples were built for. Throws InvalidArgument for bad arguments, CudaError on CUDA failures.
void crop_transform_gpu(std::span<const CropGpuSample> samples, size_t elem_size,
                        void* pinned_staging, void* device_descriptors, void* stream);

}  // namespace sluice
