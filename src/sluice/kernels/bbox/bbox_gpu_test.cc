// GPU tests (label gpu): the bounding-box kernels against their CPU versions on fresh random
// boxes, samples of mixed sizes (none, one, several blocks) into poisoned outputs. Bit-exact.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/bbox/bbox.h"
#include "sluice/kernels/common/gpu_test_util.h"

namespace sluice::kernels {
namespace {

class BboxGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

template <typename T>
std::vector<T> download(const gpu_test::DeviceBuffer& d, size_t n) {
  std::vector<T> out(n);
  cuda::memcpy_async(out.data(), d.get(), n * sizeof(T), nullptr);
  cuda::stream_synchronize(nullptr);
  return out;
}

TEST_F(BboxGpu, FlipMatchesCpu) {
  const uint32_t seed = gpu_test::test_seed();
  std::printf("seed %u\n", seed);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const std::vector<int64_t> counts = {0, 1, 7, 129, 300, 2};
  int64_t total = 0, max_boxes = 0;
  for (auto c : counts) total += c, max_boxes = std::max(max_boxes, c);
  std::vector<float> in(4 * total);
  for (auto& v : in) v = u(gen);
  for (bool ltrb : {false, true}) {
    std::vector<float> want(in.size(), NAN);
    gpu_test::DeviceBuffer d_in(in.size() * 4), d_out(in.size() * 4),
        d_desc(sizeof(BoxFlipSample) * counts.size());
    cuda::memcpy_async(d_in.get(), in.data(), in.size() * 4, nullptr);
    cuda::memset_async(d_out.get(), 0xFF, in.size() * 4, nullptr);
    std::vector<BoxFlipSample> desc;
    int64_t off = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      const bool h = i % 2, v = i / 2 % 2;
      bb_flip_cpu({in.data() + 4 * off, want.data() + 4 * off, counts[i], h, v}, ltrb);
      desc.push_back({static_cast<const float*>(d_in.get()) + 4 * off,
                      static_cast<float*>(d_out.get()) + 4 * off, counts[i], h, v});
      off += counts[i];
    }
    cuda::memcpy_async(d_desc.get(), desc.data(), sizeof(BoxFlipSample) * desc.size(), nullptr);
    bb_flip_gpu(static_cast<const BoxFlipSample*>(d_desc.get()), static_cast<int>(desc.size()),
                max_boxes, ltrb, nullptr);
    const auto got = download<float>(d_out, in.size());
    for (size_t k = 0; k < got.size(); ++k) {
      ASSERT_EQ(got[k], want[k]) << "value " << k << " ltrb " << ltrb << " (seed " << seed << ")";
    }
  }
}

}  // namespace
}  // namespace sluice::kernels
