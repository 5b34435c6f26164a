// join_gpu: one cudaMemcpy2DAsync per piece (no kernel of its own, so no nvcc).

#include <cuda_runtime.h>

#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/slice/join.h"

namespace sluice::kernels {

void join_gpu(const std::vector<JoinPiece>& pieces, void* stream) {
  for (const JoinPiece& p : pieces) {
    if (p.width == 0 || p.rows == 0) continue;
    SLUICE_CUDA_CHECK(cudaMemcpy2DAsync(p.out, p.out_pitch, p.in, p.width, p.width,
                                        static_cast<size_t>(p.rows), cudaMemcpyDefault,
                                        static_cast<cudaStream_t>(stream)));
  }
}

}  // namespace sluice::kernels
