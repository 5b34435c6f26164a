// Batched crop / flip / orientation kernel (see crop_gpu.h; item body in crop_gpu_kernels.h).

#include "sluice/kernels/crop/crop_gpu_common.cuh"
#include "sluice/kernels/crop/crop_gpu_kernels.h"
#include "sluice/kernels/crop/crop_gpu_types.h"

namespace sluice::crop_detail {
namespace {

// blockIdx.y is the sample; the blocks of a sample stride over its work items.
template <typename S>
__global__ void __launch_bounds__(kBlockSize)
    crop_transform_kernel(const CropGpuSample* __restrict__ samples) {
  const CropGpuSample& s = samples[blockIdx.y];
  const int64_t items = crop_transform_items(s, sizeof(S));
  for (int64_t item = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; item < items;
       item += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    crop_transform_item<S>(s, item);
  }
}

template <typename S>
void launch(const CropGpuSample* device_samples, int64_t num_samples, int64_t max_items,
            cudaStream_t stream) {
  const dim3 grid = sample_grid(num_samples, max_items);
  crop_transform_kernel<S><<<grid, kBlockSize, 0, stream>>>(device_samples);
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_crop_transform(const CropGpuSample* device_samples, int64_t num_samples,
                           int64_t max_items, size_t elem_size, void* stream) {
  auto st = static_cast<cudaStream_t>(stream);
  switch (elem_size) {
    case 1:
      return launch<uint8_t>(device_samples, num_samples, max_items, st);
    case 2:
      return launch<uint16_t>(device_samples, num_samples, max_items, st);
    case 4:
      return launch<uint32_t>(device_samples, num_samples, max_items, st);
    default:
      break;
  }
  throw InvalidArgument(
      make_string("crop (GPU): element size must be 1, 2 or 4 bytes, got ", elem_size));
}

}  // namespace sluice::crop_detail
