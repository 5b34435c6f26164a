// resize_gpu.h in builds without CUDA: the scratch queries work (resize_gpu_batch.cc), the
// launches throw NotImplemented.

#include "sluice/core/error.h"
#include "sluice/kernels/resize/resize_gpu.h"

namespace sluice::kernels {

void resize_gpu(std::span<const ResizeGpuSample>, int, DType, const GpuScratch&, void*) {
  throw NotImplemented("resize_gpu: this build of Sluice has no CUDA support");
}

void resize_normalize_gpu(std::span<const ResizeNormalizeGpuSample>, int, ResizeOutputLayout, DType,
                          const GpuScratch&, void*) {
  throw NotImplemented("resize_normalize_gpu: this build of Sluice has no CUDA support");
}

}  // namespace sluice::kernels
