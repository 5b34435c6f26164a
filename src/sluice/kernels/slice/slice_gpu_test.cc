// GPU tests (label gpu): the CUDA slice kernel against slice_cpu on random windows reaching out
// of random inputs, every border rule, same-type copies and conversions, per-channel fill values,
// many samples in one launch, poisoned outputs. Tolerance: none - both convert with the same
// function.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/slice/slice_kernel.h"

namespace sluice::kernels {
namespace {

using gpu_test::DeviceBuffer;

TEST(SliceGpu, RandomWindowsMatchCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const uint32_t seed = gpu_test::test_seed();
  SCOPED_TRACE(make_string("SLUICE_TEST_SEED=", seed));
  std::mt19937 gen(seed);
  const std::pair<DType, DType> types[] = {
      {DType::kUInt8, DType::kUInt8},     {DType::kInt16, DType::kInt16},
      {DType::kFloat32, DType::kFloat32}, {DType::kFloat64, DType::kFloat64},
      {DType::kFloat32, DType::kUInt8},   {DType::kInt32, DType::kFloat16},
      {DType::kUInt8, DType::kFloat32}};
  for (auto [in_type, out_type] : types) {
    for (int b = 0; b < 5; ++b) {
      const auto border = static_cast<SliceBorder>(b);
      const int n = 12;
      const size_t in_es = dtype_size(in_type), out_es = dtype_size(out_type);
      std::vector<std::vector<uint8_t>> in(n), want(n);
      std::vector<DeviceBuffer> dev_in, dev_out;
      std::vector<SliceDesc> cpu(n), gpu(n);
      std::vector<uint8_t> fill(8 * out_es);
      for (size_t c = 0; c < 8; ++c)
        slice_fill_value(double(c) * 3 - 5, out_type, &fill[c * out_es]);
      DeviceBuffer dev_fill(fill.size());
      cuda::memcpy_async(dev_fill.get(), fill.data(), fill.size(), nullptr);
      int64_t max_n = 0;
      for (int i = 0; i < n; ++i) {
        SliceDesc d;
        d.ndim = std::uniform_int_distribution<int>(1, 4)(gen);
        int64_t in_n = 1, out_n = 1;
        for (int k = 0; k < d.ndim; ++k) {
          d.in_shape[k] = std::uniform_int_distribution<int64_t>(1, 20)(gen);
          d.out_shape[k] = std::uniform_int_distribution<int64_t>(0, 25)(gen);
          d.anchor[k] = std::uniform_int_distribution<int64_t>(-10, 15)(gen);
          in_n *= d.in_shape[k];
          out_n *= d.out_shape[k];
        }
        d.channel_dim = d.ndim - 1;
        d.out_shape[d.ndim - 1] = std::min<int64_t>(d.out_shape[d.ndim - 1], 8);
        out_n = 1;
        for (int k = 0; k < d.ndim; ++k) out_n *= d.out_shape[k];
        in[i].resize(static_cast<size_t>(in_n) * in_es);
        for (int64_t e = 0; e < in_n; ++e) {  // valid values of the input type
          slice_fill_value(std::uniform_real_distribution<double>(-50, 250)(gen), in_type,
                           &in[i][e * in_es]);
        }
        want[i].assign(static_cast<size_t>(out_n) * out_es, 0xCD);
        dev_in.emplace_back(in[i].size());
        dev_out.emplace_back(want[i].size());
        cuda::memcpy_async(dev_in.back().get(), in[i].data(), in[i].size(), nullptr);
        cuda::memset_async(dev_out.back().get(), 0xCD, want[i].size(), nullptr);
        cpu[i] = gpu[i] = d;
        cpu[i].in = in[i].data(), cpu[i].out = want[i].data(), cpu[i].fill = fill.data();
        gpu[i].in = dev_in.back().get(), gpu[i].out = dev_out.back().get();
        gpu[i].fill = dev_fill.get();
        slice_cpu(cpu[i], in_type, out_type, border);
        max_n = std::max(max_n, out_n);
      }
      DeviceBuffer descs(sizeof(SliceDesc) * n);
      cuda::memcpy_async(descs.get(), gpu.data(), descs.size(), nullptr);
      slice_gpu(static_cast<const SliceDesc*>(descs.get()), n, max_n, in_type, out_type, border,
                nullptr);
      cuda::stream_synchronize(nullptr);
      for (int i = 0; i < n; ++i) {
        const auto got = gpu_test::download(dev_out[i].get(), want[i].size());
        ASSERT_EQ(got, want[i]) << dtype_name(in_type) << " -> " << dtype_name(out_type)
                                << ", border " << b << ", sample " << i;
      }
    }
  }
}

}  // namespace
}  // namespace sluice::kernels
