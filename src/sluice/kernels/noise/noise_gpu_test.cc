// GPU tests (label gpu): the noise kernels against noise_cpu on fresh random images of several
// types and sizes (an empty one, one of several blocks), into poisoned outputs. Salt and pepper
// only moves values: bit-exact. Gaussian and shot noise go through log / cos / exp, which may
// differ in the last bit on the device: a rounded value may move by one, rarely.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/noise/noise.h"

namespace sluice::kernels {
namespace {

class NoiseGpu : public ::testing::TestWithParam<NoiseKind> {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_P(NoiseGpu, MatchesCpu) {
  const NoiseKind kind = GetParam();
  const uint32_t seed = gpu_test::printed_test_seed();
  std::mt19937 gen(seed);
  for (DType t : {DType::kUInt8, DType::kInt16, DType::kFloat32}) {
    const std::vector<int64_t> sizes = {0, 17, 3 * 300 * 200, 999};
    const size_t es = dtype_size(t);
    int64_t total = 0;
    for (auto n : sizes) total += n;
    std::vector<uint8_t> in(total * es);
    for (auto& b : in) b = static_cast<uint8_t>(gen());
    if (t == DType::kFloat32) {
      for (int64_t i = 0; i < total; ++i) reinterpret_cast<float*>(in.data())[i] = gen() % 256;
    }
    std::vector<uint8_t> want(in.size(), 0xA5);
    gpu_test::DeviceBuffer d_in(in.size()), d_out(in.size()),
        d_desc(sizeof(NoiseSample) * sizes.size());
    cuda::memcpy_async(d_in.get(), in.data(), in.size(), nullptr);
    cuda::memset_async(d_out.get(), 0xA5, in.size(), nullptr);
    std::vector<NoiseSample> desc;
    int64_t off = 0, max_n = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      NoiseSample s{in.data() + off * es,
                    want.data() + off * es,
                    sizes[i],
                    SampleRng(seed, 1, static_cast<int64_t>(i)),
                    0,
                    0,
                    0,
                    0};
      s.p0 = kind == NoiseKind::kSaltAndPepper ? 0.3f : kind == NoiseKind::kShot ? 2.0f : 1.5f;
      s.p1 = kind == NoiseKind::kSaltAndPepper ? 0.1f : 20.0f;
      s.salt = 200, s.pepper = 3;
      s.group_div = 3, s.group_mod = sizes[i] / 3 + 1;
      noise_cpu(kind, s, t);
      s.in = static_cast<const uint8_t*>(d_in.get()) + off * es;
      s.out = static_cast<uint8_t*>(d_out.get()) + off * es;
      desc.push_back(s);
      off += sizes[i];
      max_n = std::max(max_n, sizes[i]);
    }
    cuda::memcpy_async(d_desc.get(), desc.data(), sizeof(NoiseSample) * desc.size(), nullptr);
    noise_gpu(kind, static_cast<const NoiseSample*>(d_desc.get()), static_cast<int>(desc.size()),
              max_n, t, nullptr);
    const auto got = gpu_test::download(d_out.get(), in.size());
    int64_t differ = 0;
    for (int64_t i = 0; i < total; ++i) {
      const double a = load_f64(got.data(), t, i), b = load_f64(want.data(), t, i);
      if (kind == NoiseKind::kSaltAndPepper) {
        ASSERT_EQ(a, b) << "element " << i << " (seed " << seed << ")";
      } else {
        ASSERT_LE(std::fabs(a - b), t == DType::kFloat32 ? 2.0 + 1e-4 * std::fabs(b) : 2.0)
            << "element " << i << " (seed " << seed << ")";
        differ += a != b;
      }
    }
    EXPECT_LE(differ, total / 1000 + 1) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, NoiseGpu,
                         ::testing::Values(NoiseKind::kGaussian, NoiseKind::kSaltAndPepper,
                                           NoiseKind::kShot));

}  // namespace
}  // namespace sluice::kernels
