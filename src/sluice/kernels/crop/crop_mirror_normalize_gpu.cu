// Batched crop_mirror_normalize kernel (see crop_mirror_normalize_gpu.h; item body in
// crop_gpu_kernels.h).

#include <algorithm>

#include "sluice/kernels/crop/crop_gpu_common.cuh"
#include "sluice/kernels/crop/crop_gpu_kernels.h"
#include "sluice/kernels/crop/crop_gpu_types.h"
#include "sluice/kernels/crop/crop_math.h"

namespace sluice::crop_detail {
namespace {

// blockIdx.y is the sample; the blocks of a sample stride over its work items.
template <typename Out, int C, int OC, bool kPlanar>
__global__ void __launch_bounds__(kBlockSize) cmn_kernel(const CmnGpuSample* __restrict__ samples) {
  const CmnGpuSample& s = samples[blockIdx.y];
  const CmnSampleConstants<Out, C, OC> constants(s);
  const int64_t items = cmn_items(s, sizeof(Out));
  for (int64_t item = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; item < items;
       item += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    cmn_item<Out, C, OC, kPlanar>(s, constants, item);
  }
}

template <typename Out, int C, int OC>
void launch_layout(bool planar, const CmnGpuSample* dev, dim3 grid, cudaStream_t stream) {
  if (planar) {
    cmn_kernel<Out, C, OC, true><<<grid, kBlockSize, 0, stream>>>(dev);
  } else {
    cmn_kernel<Out, C, OC, false><<<grid, kBlockSize, 0, stream>>>(dev);
  }
  SLUICE_CUDA_CHECK_LAUNCH();
}

template <typename Out>
void launch_channels(int channels, int out_channels, bool planar, const CmnGpuSample* dev,
                     dim3 grid, cudaStream_t stream) {
  // (C, OC) pairs that exist: C, or next_pow2(C) with pad_output.
  if (channels == 1 && out_channels == 1)
    return launch_layout<Out, 1, 1>(planar, dev, grid, stream);
  if (channels == 2 && out_channels == 2)
    return launch_layout<Out, 2, 2>(planar, dev, grid, stream);
  if (channels == 3 && out_channels == 3)
    return launch_layout<Out, 3, 3>(planar, dev, grid, stream);
  if (channels == 3 && out_channels == 4)
    return launch_layout<Out, 3, 4>(planar, dev, grid, stream);
  if (channels == 4 && out_channels == 4)
    return launch_layout<Out, 4, 4>(planar, dev, grid, stream);
  throw InvalidArgument(make_string("crop_mirror_normalize (GPU): unsupported channel counts ",
                                    channels, " -> ", out_channels));
}

}  // namespace

void launch_crop_mirror_normalize(const CmnGpuSample* device_samples, int64_t num_samples,
                                  int64_t max_items, CmnGpuOut out, int channels, int out_channels,
                                  bool planar, void* stream) {
  const dim3 grid = sample_grid(num_samples, max_items);
  auto st = static_cast<cudaStream_t>(stream);
  const CmnGpuSample* dev = device_samples;
  switch (out) {
    case CmnGpuOut::kFloat32:
      return launch_channels<float>(channels, out_channels, planar, dev, grid, st);
    case CmnGpuOut::kFloat16:
      return launch_channels<float16>(channels, out_channels, planar, dev, grid, st);
    case CmnGpuOut::kUInt8:
      return launch_channels<uint8_t>(channels, out_channels, planar, dev, grid, st);
    case CmnGpuOut::kInt8:
      return launch_channels<int8_t>(channels, out_channels, planar, dev, grid, st);
  }
  throw InvalidArgument("crop_mirror_normalize (GPU): invalid output type");
}

}  // namespace sluice::crop_detail
