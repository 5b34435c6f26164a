// GPU tests (label gpu): one_hot_gpu and lookup_gpu against their CPU twins on fresh random
// data, samples of mixed sizes (one empty), into poisoned outputs. Bit-exact.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/lookup/lookup.h"

namespace sluice::kernels {
namespace {

class LookupGpu : public gpu_test::GpuTest {};

TEST_F(LookupGpu, OneHotAndTablesMatchCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  std::mt19937 gen(seed);
  const int64_t sizes[][2] = {{7, 13}, {1, 1}, {0, 5}, {300, 3}, {2, 900}};  // outer, inner
  const int n = 5;
  const int64_t classes = 11;
  std::vector<std::vector<int16_t>> in(n);
  std::vector<std::vector<uint32_t>> want_hot(n), want_lut(n);
  std::vector<gpu_test::DeviceBuffer> d_in, d_hot, d_lut;
  std::vector<OneHotSample> hot(n);
  std::vector<LookupSample> lut(n);
  std::vector<uint32_t> table(40);
  for (auto& t : table) t = gen();
  gpu_test::DeviceBuffer d_table(table.size() * 4);
  cuda::memcpy_async(d_table.get(), table.data(), table.size() * 4, nullptr);
  const OneHotParams hp{DType::kInt16, classes, 4, 0xDEADBEEF, 0x12345678};
  int64_t max_hot = 0, max_n = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t v = sizes[i][0] * sizes[i][1];
    in[i].resize(v);
    for (auto& x : in[i]) x = static_cast<int16_t>(static_cast<int>(gen() % 60) - 10);
    want_hot[i].resize(v * classes);
    want_lut[i].resize(v);
    one_hot_cpu({in[i].data(), want_hot[i].data(), sizes[i][0], sizes[i][1]}, hp);
    lookup_cpu({in[i].data(), want_lut[i].data(), v},
               {DType::kInt16, 4, table.data(), static_cast<int64_t>(table.size()), 7});
    d_in.emplace_back(v * 2);
    d_hot.emplace_back(want_hot[i].size() * 4);
    d_lut.emplace_back(v * 4);
    cuda::memcpy_async(d_in.back().get(), in[i].data(), v * 2, nullptr);
    cuda::memset_async(d_hot.back().get(), 0xA5, d_hot.back().size(), nullptr);
    cuda::memset_async(d_lut.back().get(), 0xA5, d_lut.back().size(), nullptr);
    hot[i] = {d_in.back().get(), d_hot.back().get(), sizes[i][0], sizes[i][1]};
    lut[i] = {d_in.back().get(), d_lut.back().get(), v};
    max_hot = std::max(max_hot, v * classes);
    max_n = std::max(max_n, v);
  }
  gpu_test::DeviceBuffer d_hot_desc(sizeof(OneHotSample) * n), d_lut_desc(sizeof(LookupSample) * n);
  cuda::memcpy_async(d_hot_desc.get(), hot.data(), d_hot_desc.size(), nullptr);
  cuda::memcpy_async(d_lut_desc.get(), lut.data(), d_lut_desc.size(), nullptr);
  one_hot_gpu(static_cast<const OneHotSample*>(d_hot_desc.get()), n, max_hot, hp, nullptr);
  lookup_gpu(static_cast<const LookupSample*>(d_lut_desc.get()), n, max_n,
             {DType::kInt16, 4, d_table.get(), static_cast<int64_t>(table.size()), 7}, nullptr);
  for (int i = 0; i < n; ++i) {
    const auto got_hot = gpu_test::download<uint32_t>(d_hot[i].get(), want_hot[i].size());
    const auto got_lut = gpu_test::download<uint32_t>(d_lut[i].get(), want_lut[i].size());
    ASSERT_EQ(got_hot, want_hot[i]) << "sample " << i << " (seed " << seed << ")";
    ASSERT_EQ(got_lut, want_lut[i]) << "sample " << i << " (seed " << seed << ")";
  }
}

}  // namespace
}  // namespace sluice::kernels
