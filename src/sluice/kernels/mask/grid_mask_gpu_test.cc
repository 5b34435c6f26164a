// GPU tests (label gpu): grid_mask_gpu against grid_mask_cpu on fresh random images of mixed
// sizes and channels and random grids, each element size, into a poisoned buffer. Bit-exact:
// both sides compute the mask with the same rounded float operations.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/mask/grid_mask.h"

namespace sluice::kernels {
namespace {

class GridMaskGpu : public gpu_test::GpuTest {};

void check(size_t elem, uint32_t seed) {
  std::mt19937 gen(seed);
  const int n = 19;
  std::vector<GridMaskSample> samples(n);
  std::vector<int64_t> offset(n);
  int64_t total = 0, max_pixels = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t h = i == 0 ? 0 : 1 + gen() % 300, w = 1 + gen() % 300, c = 1 + gen() % 4;
    samples[i] = make_grid_mask_sample(nullptr, nullptr, h, w, c, 1 + static_cast<int>(gen() % 90),
                                       std::uniform_real_distribution<float>(0, 1)(gen),
                                       std::uniform_real_distribution<float>(-7, 7)(gen),
                                       std::uniform_real_distribution<float>(-99, 99)(gen),
                                       std::uniform_real_distribution<float>(-99, 99)(gen));
    offset[i] = total;
    total += h * w * c + 5;
    max_pixels = std::max(max_pixels, h * w);
  }
  const size_t bytes = static_cast<size_t>(total) * elem;
  std::vector<uint8_t> in(bytes), want(bytes, 0xA5);
  for (auto& b : in) b = static_cast<uint8_t>(gen() | 1);
  for (int i = 0; i < n; ++i) {
    GridMaskSample s = samples[i];
    s.in = in.data() + offset[i] * elem;
    s.out = want.data() + offset[i] * elem;
    grid_mask_cpu(s, elem);
  }
  gpu_test::DeviceBuffer d_in(bytes), d_out(bytes), d_samples(sizeof(GridMaskSample) * n);
  cuda::memcpy_async(d_in.get(), in.data(), bytes, nullptr);
  cuda::memset_async(d_out.get(), 0xA5, bytes, nullptr);
  for (int i = 0; i < n; ++i) {
    samples[i].in = d_in.bytes() + offset[i] * elem;
    samples[i].out = d_out.bytes() + offset[i] * elem;
  }
  cuda::memcpy_async(d_samples.get(), samples.data(), sizeof(GridMaskSample) * n, nullptr);
  grid_mask_gpu(static_cast<const GridMaskSample*>(d_samples.get()), n, max_pixels, elem, nullptr);
  const auto got = gpu_test::download(d_out.get(), bytes);
  ASSERT_TRUE(gpu_test::same_elements(got, want))
      << "element size " << elem << " (seed " << seed << ")";
}

TEST_F(GridMaskGpu, MixedBatchMatchesCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  for (size_t elem : {1, 2, 4}) check(elem, seed + static_cast<uint32_t>(elem));
}

}  // namespace
}  // namespace sluice::kernels
