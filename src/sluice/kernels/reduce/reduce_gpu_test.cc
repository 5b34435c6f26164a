// GPU tests (label gpu): reduce_gpu against reduce_cpu on fresh random data, a batch of samples
// of mixed shapes and reduced axes, every reduction, into poisoned outputs. Integer outputs are
// bit-exact; floating-point ones agree to 1e-5 relative (the sums run in another order).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/reduce/reduce_cpu.h"
#include "sluice/kernels/reduce/reduce_gpu.h"

namespace sluice::kernels {
namespace {

struct Case {
  ReduceOp op;
  DType in, out;
};

template <typename T>
double as_double(const std::vector<uint8_t>& bytes, int64_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return static_cast<double>(v);
}

double element(const std::vector<uint8_t>& bytes, DType t, int64_t i) {
  return dtype_dispatch(t, [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T>) {
      return as_double<T>(bytes, i);
    } else {
      return 0;
    }
  });
}

void check(const Case& c, uint32_t seed) {
  std::mt19937 gen(seed);
  const std::vector<Shape> shapes = {{31, 17, 3}, {1, 5, 3}, {0, 4, 3}, {64, 129, 3}, {2, 2, 1}};
  const uint64_t masks[] = {0b011, 0b100, 0b111, 0b101, 0b010};
  const int n = static_cast<int>(shapes.size());
  const size_t in_size = dtype_size(c.in), out_size = dtype_size(c.out);
  std::vector<std::vector<uint8_t>> in(n), want(n), mean(n);
  std::vector<ReduceGeometry> geo(n);
  std::vector<gpu_test::DeviceBuffer> d_in, d_out, d_mean;
  std::vector<ReduceSampleGpu> desc(n);
  int64_t max_out = 0, max_red = 0;
  for (int i = 0; i < n; ++i) {
    geo[i] = reduce_geometry(shapes[i], masks[i]);
    const int64_t v = volume(shapes[i]);
    in[i].resize(v * in_size);
    dtype_dispatch(c.in, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T>) {
        for (int64_t k = 0; k < v; ++k) {
          T x = std::is_floating_point_v<T>
                    ? static_cast<T>(std::uniform_real_distribution<double>(-100, 100)(gen))
                    : static_cast<T>(gen() | 1);
          std::memcpy(in[i].data() + k * in_size, &x, in_size);
        }
      }
    });
    mean[i].resize(geo[i].out_volume * sizeof(float));
    for (int64_t k = 0; k < geo[i].out_volume; ++k) {
      float m = std::uniform_real_distribution<float>(-10, 10)(gen);
      std::memcpy(mean[i].data() + k * sizeof(float), &m, sizeof(float));
    }
    want[i].resize(geo[i].out_volume * out_size);
    reduce_cpu(c.op, want[i].data(), c.out, in[i].data(), c.in, geo[i],
               reinterpret_cast<const float*>(mean[i].data()), 1);
    d_in.emplace_back(in[i].size());
    d_out.emplace_back(want[i].size());
    d_mean.emplace_back(mean[i].size());
    cuda::memcpy_async(d_in.back().get(), in[i].data(), in[i].size(), nullptr);
    cuda::memcpy_async(d_mean.back().get(), mean[i].data(), mean[i].size(), nullptr);
    cuda::memset_async(d_out.back().get(), 0xA5, want[i].size(), nullptr);
    desc[i] = {d_in.back().get(), d_out.back().get(),
               static_cast<const float*>(d_mean.back().get()), geo[i]};
    max_out = std::max(max_out, geo[i].out_volume);
    max_red = std::max(max_red, geo[i].reduced_volume);
  }
  gpu_test::DeviceBuffer d_desc(sizeof(ReduceSampleGpu) * n);
  cuda::memcpy_async(d_desc.get(), desc.data(), d_desc.size(), nullptr);
  reduce_gpu(c.op, static_cast<const ReduceSampleGpu*>(d_desc.get()), n, max_out, max_red, c.out,
             c.in, 1, nullptr);
  for (int i = 0; i < n; ++i) {
    const auto got = gpu_test::download(d_out[i].get(), want[i].size());
    for (int64_t k = 0; k < geo[i].out_volume; ++k) {
      const double a = element(got, c.out, k), b = element(want[i], c.out, k);
      if (dtype_is_float(c.out)) {
        if (std::isnan(b)) {
          EXPECT_TRUE(std::isnan(a));
        } else if (a != b) {  // equal infinities are equal; their difference is not
          ASSERT_NEAR(a, b, 1e-5 * std::abs(b) + 1e-6)
              << "op " << int(c.op) << " sample " << i << " element " << k << " (seed " << seed
              << ")";
        }
      } else {
        ASSERT_EQ(std::memcmp(got.data() + k * out_size, want[i].data() + k * out_size, out_size),
                  0)
            << "op " << int(c.op) << " sample " << i << " element " << k << " (seed " << seed
            << ")";
      }
    }
  }
}

class ReduceGpu : public gpu_test::GpuTest {};

TEST_F(ReduceGpu, EveryReductionMatchesCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  const Case cases[] = {
      {ReduceOp::kSum, DType::kUInt8, DType::kUInt64},
      {ReduceOp::kSum, DType::kUInt8, DType::kUInt8},
      {ReduceOp::kSum, DType::kInt16, DType::kFloat32},
      {ReduceOp::kSum, DType::kFloat32, DType::kFloat32},
      {ReduceOp::kMin, DType::kInt32, DType::kInt32},
      {ReduceOp::kMax, DType::kFloat32, DType::kFloat32},
      {ReduceOp::kMax, DType::kUInt64, DType::kUInt64},
      {ReduceOp::kMean, DType::kUInt8, DType::kFloat32},
      {ReduceOp::kMean, DType::kInt8, DType::kInt8},
      {ReduceOp::kMeanSquare, DType::kUInt16, DType::kUInt64},
      {ReduceOp::kMeanSquare, DType::kFloat32, DType::kFloat32},
      {ReduceOp::kRms, DType::kInt32, DType::kFloat32},
      {ReduceOp::kVariance, DType::kUInt8, DType::kFloat32},
      {ReduceOp::kStdDev, DType::kFloat32, DType::kFloat32},
  };
  for (const Case& c : cases) check(c, seed);
}

}  // namespace
}  // namespace sluice::kernels
