// CUDA kernels of resize_gpu.h: thin __global__ wrappers around the per-thread bodies of
// detail/resize_gpu_passes.h, and the stream-ordered launch sequence of Note [GPU resize batch
// layout].

#include <cuda_runtime.h>

#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/resize/detail/resize_gpu_batch.h"
#include "sluice/kernels/resize/detail/resize_gpu_passes.h"
#include "sluice/kernels/resize/resize_gpu.h"

namespace sluice::kernels {
namespace detail {
namespace {

constexpr int kTileThreads = kTileW * kTileH;

template <typename W>
__global__ void __launch_bounds__(kCoefBlock) coef_kernel(GpuBatch batch) {
  coef_thread<W>(batch, static_cast<int32_t>(blockIdx.x), static_cast<int32_t>(threadIdx.x));
}

template <int C, typename W>
__global__ void __launch_bounds__(kTileThreads) h_pass_kernel(GpuBatch batch) {
  h_pass_thread<C, W>(batch, static_cast<int32_t>(blockIdx.x), static_cast<int32_t>(threadIdx.x),
                      static_cast<int32_t>(threadIdx.y));
}

template <int C, typename W, typename Epilogue>
__global__ void __launch_bounds__(kTileThreads) v_pass_kernel(GpuBatch batch) {
  v_pass_thread<C, W, Epilogue>(batch, static_cast<int32_t>(blockIdx.x),
                                static_cast<int32_t>(threadIdx.x),
                                static_cast<int32_t>(threadIdx.y));
}

// Runner for dispatch_gpu_passes: the three launches of one batch.
struct Launcher {
  const GpuPlan& plan;
  cudaStream_t stream;

  template <int C, typename W, typename Epilogue>
  void run() {
    const dim3 tile(kTileW, kTileH);
    if (plan.coef_blocks > 0) {
      coef_kernel<W>
          <<<static_cast<unsigned>(plan.coef_blocks), kCoefBlock, 0, stream>>>(plan.batch);
      SLUICE_CUDA_CHECK_LAUNCH();
    }
    if (plan.h_blocks > 0) {
      h_pass_kernel<C, W><<<static_cast<unsigned>(plan.h_blocks), tile, 0, stream>>>(plan.batch);
      SLUICE_CUDA_CHECK_LAUNCH();
    }
    if (plan.v_blocks > 0) {
      v_pass_kernel<C, W, Epilogue>
          <<<static_cast<unsigned>(plan.v_blocks), tile, 0, stream>>>(plan.batch);
      SLUICE_CUDA_CHECK_LAUNCH();
    }
  }
};

void run_batch(const GpuPlan& plan, const GpuScratch& scratch, int channels, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  SLUICE_CUDA_CHECK(
      cudaMemcpyAsync(scratch.device, scratch.host, plan.host_bytes, cudaMemcpyHostToDevice, s));
  Launcher launcher{plan, s};
  dispatch_gpu_passes(channels, plan.epilogue, launcher);
}

void check_scratch_given(const GpuScratch& scratch, const char* what) {
  SLUICE_CHECK(scratch.host != nullptr && scratch.device != nullptr, InvalidArgument, what,
               ": host and device scratch are required (see *_scratch_sizes)");
}

}  // namespace
}  // namespace detail

void resize_gpu(std::span<const ResizeGpuSample> samples, int channels, DType out_type,
                const GpuScratch& scratch, void* stream) {
  if (samples.empty()) return;
  detail::check_scratch_given(scratch, "resize_gpu");
  const detail::GpuPlan plan =
      detail::plan_gpu_batch(samples, channels, out_type, scratch, "resize_gpu");
  detail::run_batch(plan, scratch, channels, stream);
}

void resize_normalize_gpu(std::span<const ResizeNormalizeGpuSample> samples, int channels,
                          ResizeOutputLayout layout, DType out_type, const GpuScratch& scratch,
                          void* stream) {
  if (samples.empty()) return;
  detail::check_scratch_given(scratch, "resize_normalize_gpu");
  const detail::GpuPlan plan =
      detail::plan_gpu_batch(samples, channels, layout, out_type, scratch, "resize_normalize_gpu");
  detail::run_batch(plan, scratch, channels, stream);
}

}  // namespace sluice::kernels
