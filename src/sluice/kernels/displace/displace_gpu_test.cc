// GPU tests (label gpu): displace_gpu against displace_cpu on fresh random images of mixed sizes
// and channels, uint8 and float, nearest and linear, into a poisoned buffer. sphere and jitter
// are bit-exact; water may differ where CUDA's sinf / cosf and the C library's differ in the
// last bit: at most 0.1% of the elements, each by at most 1 (uint8) or 1% of the range (float).

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/displace/displace.h"

namespace sluice::kernels {
namespace {

class DisplaceGpu : public gpu_test::GpuTest {};

template <typename T>
void check(DisplaceParams p, uint32_t seed) {
  std::mt19937 gen(seed);
  const int n = 13;
  std::vector<DisplaceSample> samples(n);
  std::vector<int64_t> offset(n);
  int64_t total = 0, max_pixels = 0;
  for (int i = 0; i < n; ++i) {
    DisplaceSample& s = samples[i];
    s = {};
    s.height = 1 + gen() % 250;
    s.width = 1 + gen() % 250;
    s.channels = 1 + gen() % 4;
    s.apply = i % 5 != 0;
    s.fill = static_cast<float>(gen() % 256);
    s.ampl_x = std::uniform_real_distribution<float>(-20, 20)(gen);
    s.ampl_y = std::uniform_real_distribution<float>(-20, 20)(gen);
    s.freq_x = std::uniform_real_distribution<float>(0, 0.3f)(gen);
    s.freq_y = std::uniform_real_distribution<float>(0, 0.3f)(gen);
    s.phase_x = std::uniform_real_distribution<float>(-3, 3)(gen);
    s.phase_y = std::uniform_real_distribution<float>(-3, 3)(gen);
    s.n_degree = 1 + static_cast<int>(gen() % 9);
    s.key = {static_cast<uint32_t>(gen()), static_cast<uint32_t>(gen())};
    offset[i] = total;
    total += s.height * s.width * s.channels + 3;
    max_pixels = std::max(max_pixels, s.height * s.width);
  }
  std::vector<T> in(total), want(total, T(77));
  for (auto& v : in) v = static_cast<T>(gen() % 256);
  for (int i = 0; i < n; ++i) {
    DisplaceSample s = samples[i];
    s.in = in.data() + offset[i];
    s.out = want.data() + offset[i];
    displace_cpu(s, p);
  }
  gpu_test::DeviceBuffer d_in(sizeof(T) * total), d_out(sizeof(T) * total),
      d_samples(sizeof(DisplaceSample) * n);
  cuda::memcpy_async(d_in.get(), in.data(), d_in.size(), nullptr);
  std::vector<T> poison(total, T(77));
  cuda::memcpy_async(d_out.get(), poison.data(), d_out.size(), nullptr);
  for (int i = 0; i < n; ++i) {
    samples[i].in = static_cast<const T*>(d_in.get()) + offset[i];
    samples[i].out = static_cast<T*>(d_out.get()) + offset[i];
  }
  cuda::memcpy_async(d_samples.get(), samples.data(), d_samples.size(), nullptr);
  displace_gpu(static_cast<const DisplaceSample*>(d_samples.get()), n, p, max_pixels, nullptr);
  const auto got = gpu_test::download<T>(d_out.get(), total);
  // Water: a sine a bit or two off moves a position by about 1e-5 pixel. Linear samples then
  // differ by rounding (any float element, a uint8 one by 1 at a .5 tie) and stay within `tol`;
  // only a nearest-neighbour pick on a pixel edge or a larger linear difference is rare.
  const bool exact = p.kind != DisplaceKind::kWater;
  const double tol = std::is_same_v<T, float> ? 2.56 : 1.0;
  const double rounding = std::is_same_v<T, float> ? 0.01 : 1.0;
  int64_t differ = 0;
  for (int64_t e = 0; e < total; ++e) {
    const double d = std::abs(static_cast<double>(got[e]) - static_cast<double>(want[e]));
    if (exact) {
      ASSERT_EQ(got[e], want[e]) << "element " << e << " (seed " << seed << ")";
    } else if (d > 0) {
      ASSERT_LE(d, p.linear ? tol : 255.0) << "element " << e << " (seed " << seed << ")";
      if (!p.linear || d > rounding) ++differ;
    }
  }
  EXPECT_LE(differ, total / 1000) << "seed " << seed;
}

TEST_F(DisplaceGpu, SphereAndJitterMatchCpuExactly) {
  const uint32_t seed = gpu_test::printed_test_seed();
  for (bool linear : {false, true}) {
    check<uint8_t>({DisplaceKind::kSphere, linear, false}, seed);
    check<float>({DisplaceKind::kSphere, linear, true}, seed + 1);
  }
  check<uint8_t>({DisplaceKind::kJitter, false, false}, seed + 2);
  check<float>({DisplaceKind::kJitter, false, true}, seed + 3);
}

TEST_F(DisplaceGpu, WaterMatchesCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  for (bool linear : {false, true}) {
    check<uint8_t>({DisplaceKind::kWater, linear, false}, seed);
    check<float>({DisplaceKind::kWater, linear, true}, seed + 1);
  }
}

}  // namespace
}  // namespace sluice::kernels
