// Host side of the batched CUDA launches of kernels/crop: argument checks, descriptor upload
// through the caller's pinned staging buffer, then the kernels of crop_gpu.cu and
// crop_mirror_normalize_gpu.cu. CUDA builds only.

#include <algorithm>
#include <cstring>
#include <span>

#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/crop/crop_gpu.h"
#include "sluice/kernels/crop/crop_mirror_normalize_gpu.h"

namespace sluice {
namespace {

void check_batch(int64_t n, const void* pinned_staging, const void* device_descriptors,
                 const char* op) {
  SLUICE_CHECK(n <= kCropGpuMaxSamples, InvalidArgument, op, " (GPU): at most ", kCropGpuMaxSamples,
               " samples per launch, got ", n);
  SLUICE_CHECK(pinned_staging != nullptr && device_descriptors != nullptr, InvalidArgument, op,
               " (GPU): pinned_staging and device_descriptors must not be null");
}

// Descriptors -> caller's pinned staging (unless already there) -> caller's device buffer.
void upload(const void* host, size_t bytes, void* pinned_staging, void* device_descriptors,
            void* stream) {
  if (host != pinned_staging) std::memcpy(pinned_staging, host, bytes);
  cuda::memcpy_async(device_descriptors, pinned_staging, bytes, stream);
}

// Uploads the descriptors; returns the largest work count of a sample (0: nothing to launch).
template <typename Sample, typename ItemsFn>
int64_t upload_batch(std::span<const Sample> samples, size_t bytes, ItemsFn items,
                     void* pinned_staging, void* device_descriptors, void* stream) {
  int64_t max_items = 0;
  for (const Sample& s : samples) max_items = std::max(max_items, items(s));
  upload(samples.data(), bytes, pinned_staging, device_descriptors, stream);
  return max_items;
}

}  // namespace

void crop_transform_gpu(std::span<const CropGpuSample> samples, size_t elem_size,
                        void* pinned_staging, void* device_descriptors, void* stream) {
  const auto n = static_cast<int64_t>(samples.size());
  if (n == 0) return;
  check_batch(n, pinned_staging, device_descriptors, "crop");
  SLUICE_CHECK(elem_size == 1 || elem_size == 2 || elem_size == 4, InvalidArgument,
               "crop (GPU): element size must be 1, 2 or 4 bytes, got ", elem_size);
  const int64_t max_items = upload_batch(
      samples, crop_gpu_descriptor_bytes(n),
      [elem_size](const CropGpuSample& s) {
        return crop_detail::crop_transform_items(s, elem_size);
      },
      pinned_staging, device_descriptors, stream);
  if (max_items == 0) return;
  crop_detail::launch_crop_transform(static_cast<const CropGpuSample*>(device_descriptors), n,
                                     max_items, elem_size, stream);
}

void crop_mirror_normalize_gpu(std::span<const CmnGpuSample> samples, const CmnChannelTable& table,
                               void* pinned_staging, void* device_descriptors, void* stream) {
  const auto n = static_cast<int64_t>(samples.size());
  if (n == 0) return;
  check_batch(n, pinned_staging, device_descriptors, "crop_mirror_normalize");
  SLUICE_CHECK(table.channels >= 1 && table.channels <= kCmnGpuMaxChannels, InvalidArgument,
               "crop_mirror_normalize (GPU): supports 1..", kCmnGpuMaxChannels, " channels, got ",
               table.channels);
  SLUICE_CHECK(table.out_channels == cmn_output_channels(table.channels, false) ||
                   table.out_channels == cmn_output_channels(table.channels, true),
               InvalidArgument, "crop_mirror_normalize (GPU): output channels ", table.out_channels,
               " do not fit ", table.channels, " input channels");
  crop_detail::CmnGpuOut out;
  switch (table.out_type) {
    case DType::kFloat32:
      out = crop_detail::CmnGpuOut::kFloat32;
      break;
    case DType::kFloat16:
      out = crop_detail::CmnGpuOut::kFloat16;
      break;
    case DType::kUInt8:
      out = crop_detail::CmnGpuOut::kUInt8;
      break;
    case DType::kInt8:
      out = crop_detail::CmnGpuOut::kInt8;
      break;
    default:
      throw InvalidArgument(make_string("crop_mirror_normalize (GPU): unsupported output dtype ",
                                        dtype_name(table.out_type)));
  }
  const size_t out_size = dtype_size(table.out_type);
  const int64_t max_items = upload_batch(
      samples, cmn_gpu_descriptor_bytes(n),
      [out_size](const CmnGpuSample& s) { return crop_detail::cmn_items(s, out_size); },
      pinned_staging, device_descriptors, stream);
  if (max_items == 0) return;
  crop_detail::launch_crop_mirror_normalize(static_cast<const CmnGpuSample*>(device_descriptors), n,
                                            max_items, out, table.channels, table.out_channels,
                                            table.out_layout == ImageLayout::kCHW, stream);
}

}  // namespace sluice
