// GPU tests (label gpu): the CUDA strided copy against strided_copy_cpu on random slices (steps
// both ways, indices, whole dimensions) of random data, every element size, many samples in one
// launch, poisoned outputs. Tolerance: none - the kernel only moves elements.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/slice/strided_copy.h"

namespace sluice::kernels {
namespace {

using gpu_test::DeviceBuffer;

TEST(StridedCopyGpu, RandomSlicesMatchCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const uint32_t seed = gpu_test::test_seed();
  SCOPED_TRACE(make_string("SLUICE_TEST_SEED=", seed));
  std::mt19937 gen(seed);
  for (size_t elem : {1, 2, 4, 8}) {
    const int n = 40;
    std::vector<std::vector<uint8_t>> in(n), want(n);
    std::vector<DeviceBuffer> dev_in, dev_out;
    std::vector<StridedCopyDesc> cpu(n), gpu(n);
    int64_t max_n = 0;
    for (int i = 0; i < n; ++i) {
      const int nd = std::uniform_int_distribution<int>(1, 5)(gen);
      Shape shape(nd), start(nd), step(nd), extent(nd);
      for (int d = 0; d < nd; ++d) {
        shape[d] = std::uniform_int_distribution<int64_t>(1, 40)(gen);
        const int kind = std::uniform_int_distribution<int>(0, 3)(gen);
        if (kind == 0) {
          start[d] = 0, step[d] = 1, extent[d] = shape[d];
        } else if (kind == 1) {
          start[d] = std::uniform_int_distribution<int64_t>(0, shape[d] - 1)(gen);
          step[d] = 1, extent[d] = 1;
        } else {
          step[d] = std::uniform_int_distribution<int64_t>(1, 4)(gen) * (kind == 2 ? 1 : -1);
          start[d] = std::uniform_int_distribution<int64_t>(0, shape[d] - 1)(gen);
          const int64_t room = step[d] > 0 ? shape[d] - start[d] : start[d] + 1;
          extent[d] = (room - 1) / std::abs(step[d]) + 1;
        }
      }
      in[i].resize(static_cast<size_t>(volume(shape)) * elem);
      for (auto& b : in[i]) b = static_cast<uint8_t>(gen());
      want[i].assign(static_cast<size_t>(volume(extent)) * elem, 0xCD);
      dev_in.emplace_back(in[i].size());
      dev_out.emplace_back(want[i].size());
      cuda::memcpy_async(dev_in.back().get(), in[i].data(), in[i].size(), nullptr);
      cuda::memset_async(dev_out.back().get(), 0xCD, want[i].size(), nullptr);
      ASSERT_TRUE(describe_strided_copy(cpu[i], want[i].data(), in[i].data(), elem, shape, start,
                                        step, extent));
      ASSERT_TRUE(describe_strided_copy(gpu[i], dev_out.back().get(), dev_in.back().get(), elem,
                                        shape, start, step, extent));
      strided_copy_cpu(cpu[i], elem);
      max_n = std::max(max_n, volume(extent));
    }
    DeviceBuffer descs(sizeof(StridedCopyDesc) * n);
    cuda::memcpy_async(descs.get(), gpu.data(), descs.size(), nullptr);
    strided_copy_gpu(static_cast<const StridedCopyDesc*>(descs.get()), n, max_n, elem, nullptr);
    cuda::stream_synchronize(nullptr);
    for (int i = 0; i < n; ++i) {
      const auto got = gpu_test::download(dev_out[i].get(), want[i].size());
      ASSERT_EQ(got, want[i]) << elem << "-byte elements, sample " << i;
    }
  }
}

}  // namespace
}  // namespace sluice::kernels
