#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/erase/erase.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kElementsPerBlock = int64_t{kThreads} * 8;

// Block (x, y) writes elements [x * kElementsPerBlock, (x + 1) * kElementsPerBlock) of sample y:
// the fill value where a box covers the element, the input's element elsewhere.
template <typename W>
__global__ void erase_kernel(const EraseSample* samples, const EraseBox* boxes,
                             const uint64_t* fill) {
  const EraseSample s = samples[blockIdx.y];
  const int64_t begin = int64_t{blockIdx.x} * kElementsPerBlock;
  const int64_t end = min(begin + kElementsPerBlock, s.volume);
  const W* in = static_cast<const W*>(s.in);
  W* out = static_cast<W*>(s.out);
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) {
    int64_t idx[kEraseMaxDims];
    int64_t rest = i;
    for (int d = s.ndim - 1; d >= 0; --d) {
      idx[d] = rest % s.extent[d];
      rest /= s.extent[d];
    }
    bool covered = false;
    for (int k = 0; k < s.num_boxes && !covered; ++k) {
      const EraseBox& b = boxes[s.first_box + k];
      bool inside = true;
      for (int d = 0; d < s.ndim; ++d) inside = inside && idx[d] >= b.lo[d] && idx[d] < b.hi[d];
      covered = inside;
    }
    if (covered) {
      const int c = s.channel_dim < 0 ? 0 : static_cast<int>(idx[s.channel_dim]);
      out[i] = static_cast<W>(fill[s.first_fill + c]);
    } else if (out != in) {
      out[i] = in[i];
    }
  }
}

}  // namespace

void erase_gpu(const EraseSample* samples, int num_samples, const EraseBox* boxes,
               const uint64_t* fill, int64_t max_volume, size_t elem_size, void* stream) {
  if (num_samples == 0 || max_volume == 0) return;
  const dim3 grid = batch_grid(num_samples, max_volume, kElementsPerBlock);
  auto s = static_cast<cudaStream_t>(stream);
  switch (elem_size) {
    case 1:
      erase_kernel<uint8_t><<<grid, kThreads, 0, s>>>(samples, boxes, fill);
      break;
    case 2:
      erase_kernel<uint16_t><<<grid, kThreads, 0, s>>>(samples, boxes, fill);
      break;
    case 4:
      erase_kernel<uint32_t><<<grid, kThreads, 0, s>>>(samples, boxes, fill);
      break;
    default:
      erase_kernel<uint64_t><<<grid, kThreads, 0, s>>>(samples, boxes, fill);
      break;
  }
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace sluice::kernels
