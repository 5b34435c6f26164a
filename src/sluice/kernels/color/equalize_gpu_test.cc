// GPU test (label gpu): equalize_gpu against equalize_cpu on fresh random channels of mixed
// sizes and strides (one empty, one constant), into poisoned outputs. Bit-exact.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/color/equalize.h"
#include "sluice/kernels/common/gpu_test_util.h"

namespace sluice::kernels {
namespace {

TEST(EqualizeGpu, MixedChannelsMatchCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const uint32_t seed = gpu_test::printed_test_seed();
  std::mt19937 gen(seed);
  const int64_t pixels[] = {640 * 480, 1, 0, 4097, 300 * 200, 50};
  const int strides[] = {3, 1, 2, 4, 1, 3};
  const int n = 6;
  std::vector<std::vector<uint8_t>> in(n), want(n);
  std::vector<gpu_test::DeviceBuffer> d_in, d_out;
  std::vector<EqualizeChannel> desc(n), host(n);
  int64_t max_pixels = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t bytes = pixels[i] * strides[i];
    in[i].resize(bytes);
    const int range = 1 + static_cast<int>(gen() % 256);
    for (auto& v : in[i]) v = static_cast<uint8_t>(i == 5 ? 9 : gen() % range);
    want[i].assign(bytes, 0xA5);
    equalize_cpu({in[i].data(), want[i].data(), pixels[i], strides[i]});
    d_in.emplace_back(bytes);
    d_out.emplace_back(bytes);
    cuda::memcpy_async(d_in.back().get(), in[i].data(), bytes, nullptr);
    cuda::memset_async(d_out.back().get(), 0xA5, bytes, nullptr);
    desc[i] = {d_in.back().bytes(), d_out.back().bytes(), pixels[i], strides[i]};
    max_pixels = std::max(max_pixels, pixels[i]);
  }
  gpu_test::DeviceBuffer d_desc(sizeof(EqualizeChannel) * n), d_hists(sizeof(uint32_t) * 256 * n);
  cuda::memcpy_async(d_desc.get(), desc.data(), d_desc.size(), nullptr);
  equalize_gpu(static_cast<const EqualizeChannel*>(d_desc.get()), n, max_pixels,
               static_cast<uint32_t*>(d_hists.get()), nullptr);
  for (int i = 0; i < n; ++i) {
    const auto got = gpu_test::download(d_out[i].get(), want[i].size());
    ASSERT_EQ(got, want[i]) << "channel " << i << " (seed " << seed << ")";
  }
}

}  // namespace
}  // namespace sluice::kernels
