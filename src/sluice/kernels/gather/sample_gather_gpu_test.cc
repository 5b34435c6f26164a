// GPU tests (label gpu): copy_samples_gpu against copy_sample_cpu on fresh random non-zero data,
// samples of mixed sizes (0, a few bytes, several blocks), aligned and misaligned ends, in a
// shuffled order, into a poisoned buffer whose guard gaps must stay poisoned. Bit-exact.

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/gather/sample_gather.h"

namespace sluice::kernels {
namespace {

constexpr uint8_t kPoison = 0xA5;

void check_gather(int n, int64_t max_size, bool aligned, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<int64_t> size(n), src_off(n), dst_off(n);
  int64_t src_total = 0;
  for (int i = 0; i < n; ++i) {
    size[i] = i % 7 == 0 ? 0 : std::uniform_int_distribution<int64_t>(1, max_size)(gen);
    const int64_t pad = aligned ? (16 - src_total % 16) % 16 : 1 + i % 5;
    src_off[i] = src_total + pad;
    src_total = src_off[i] + size[i];
  }
  std::vector<uint8_t> src(src_total);
  for (auto& b : src) b = static_cast<uint8_t>(gen() | 1);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), gen);
  int64_t dst_total = 0;
  for (int k = 0; k < n; ++k) {
    const int64_t gap = aligned ? 16 + (16 - dst_total % 16) % 16 : 3 + k % 4;
    dst_off[k] = dst_total + gap;
    dst_total = dst_off[k] + size[order[k]];
  }
  dst_total += 16;

  std::vector<uint8_t> want(dst_total, kPoison);
  for (int k = 0; k < n; ++k) {
    const int i = order[k];
    copy_sample_cpu({want.data() + dst_off[k], src.data() + src_off[i], size[i]});
  }

  gpu_test::DeviceBuffer d_src(src.size()), d_dst(want.size()), d_desc(sizeof(SampleCopy) * n);
  cuda::memcpy_async(d_src.get(), src.data(), src.size(), nullptr);
  cuda::memset_async(d_dst.get(), kPoison, want.size(), nullptr);
  std::vector<SampleCopy> desc(n);
  int64_t max_bytes = 0;
  for (int k = 0; k < n; ++k) {
    const int i = order[k];
    desc[k] = {d_dst.bytes() + dst_off[k], d_src.bytes() + src_off[i], size[i]};
    max_bytes = std::max(max_bytes, size[i]);
  }
  cuda::memcpy_async(d_desc.get(), desc.data(), sizeof(SampleCopy) * n, nullptr);
  copy_samples_gpu(static_cast<const SampleCopy*>(d_desc.get()), n, max_bytes, nullptr);
  const auto got = gpu_test::download(d_dst.get(), want.size());
  ASSERT_TRUE(gpu_test::same_elements(got, want)) << "seed " << seed;
}

class SampleGatherGpu : public gpu_test::GpuTest {};

TEST_F(SampleGatherGpu, AlignedSamplesMatchCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  check_gather(37, 70000, true, seed);
}

TEST_F(SampleGatherGpu, MisalignedSamplesMatchCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  check_gather(29, 40000, false, seed);
}

TEST_F(SampleGatherGpu, TinySamplesMatchCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  check_gather(200, 17, false, seed);
}

}  // namespace
}  // namespace sluice::kernels
