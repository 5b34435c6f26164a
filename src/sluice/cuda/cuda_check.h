#pragma once
// Error checks for CUDA runtime calls, for .cu and *_gpu.cc files only.

#include <cuda_runtime.h>

#include "sluice/core/error.h"

namespace sluice::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* expr, const char* file,
                                          int line) {
  std::string msg = make_string("CUDA error ", cudaGetErrorName(err), " (", cudaGetErrorString(err),
                                ") in ", expr, " at ", file, ":", line);
  if (err == cudaErrorMemoryAllocation) {
    // Calls without a size (stream or event creation) fail too when memory runs out: say how
    // much was left, so the message tells the user what to free.
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      msg += make_string(", with ", free_bytes, " bytes of device memory free of ", total_bytes,
                         " bytes");
    }
    throw OutOfMemory(msg);
  }
  throw CudaError(msg);
}

}  // namespace sluice::cuda

// Checks a cudaError_t; throws CudaError (OutOfMemory for allocation failures).
#define SLUICE_CUDA_CHECK(expr)                                                 \
  do {                                                                          \
    cudaError_t sluice_err_ = (expr);                                           \
    if (sluice_err_ != cudaSuccess) {                                           \
      ::sluice::cuda::throw_cuda_error(sluice_err_, #expr, __FILE__, __LINE__); \
    }                                                                           \
  } while (0)

// Checks the last kernel launch.
#define SLUICE_CUDA_CHECK_LAUNCH() SLUICE_CUDA_CHECK(cudaGetLastError())
