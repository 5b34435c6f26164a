// GPU tests (label gpu): normalize_gpu and normalize_fold_gpu against their CPU twins on fresh
// random data, samples of mixed shapes and normalized axes, into poisoned outputs. Bit-exact: both
// sides round every operation the same way.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/normalize/normalize.h"

namespace sluice::kernels {
namespace {

class NormalizeGpu : public gpu_test::GpuTest {};

template <typename T>
void upload(gpu_test::DeviceBuffer& d, const std::vector<T>& v) {
  cuda::memcpy_async(d.get(), v.data(), v.size() * sizeof(T), nullptr);
}

TEST_F(NormalizeGpu, MixedBatchMatchesCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  std::mt19937 gen(seed);
  const std::vector<Shape> shapes = {{37, 41, 3}, {1, 7, 3}, {0, 5, 3}, {120, 90, 3}, {3, 3, 1}};
  const uint64_t masks[] = {0b011, 0b100, 0b011, 0b111, 0b010};
  const int n = static_cast<int>(shapes.size());
  for (DType out_type : {DType::kFloat32, DType::kUInt8, DType::kInt16}) {
    std::vector<gpu_test::DeviceBuffer> d_in, d_out, d_mean, d_inv;
    std::vector<NormalizeSampleGpu> desc(n);
    std::vector<std::vector<uint8_t>> want(n);
    int64_t max_volume = 0;
    for (int i = 0; i < n; ++i) {
      const NormalizeGeometry g = normalize_geometry(shapes[i], masks[i]);
      int64_t params = 1;
      for (size_t d = 0; d < shapes[i].size(); ++d)
        params *= ((masks[i] >> d) & 1) ? 1 : shapes[i][d];
      std::vector<uint8_t> in(volume(shapes[i]));
      for (auto& v : in) v = static_cast<uint8_t>(gen() | 1);
      std::vector<float> mean(params), inv(params);
      for (auto& v : mean) v = std::uniform_real_distribution<float>(50, 200)(gen);
      for (auto& v : inv) v = std::uniform_real_distribution<float>(0.01f, 3)(gen);
      want[i].resize(in.size() * dtype_size(out_type));
      normalize_cpu(want[i].data(), out_type, in.data(), DType::kUInt8, g, mean.data(), inv.data(),
                    3.5f);
      d_in.emplace_back(in.size());
      d_out.emplace_back(want[i].size());
      d_mean.emplace_back(mean.size() * sizeof(float));
      d_inv.emplace_back(inv.size() * sizeof(float));
      upload(d_in.back(), in);
      upload(d_mean.back(), mean);
      upload(d_inv.back(), inv);
      cuda::memset_async(d_out.back().get(), 0xA5, want[i].size(), nullptr);
      desc[i] = {d_in.back().get(), d_out.back().get(),
                 static_cast<const float*>(d_mean.back().get()),
                 static_cast<const float*>(d_inv.back().get()), g};
      max_volume = std::max(max_volume, g.volume);
    }
    gpu_test::DeviceBuffer d_desc(sizeof(NormalizeSampleGpu) * n);
    upload(d_desc, desc);
    normalize_gpu(static_cast<const NormalizeSampleGpu*>(d_desc.get()), n, max_volume, out_type,
                  DType::kUInt8, 3.5f, nullptr);
    for (int i = 0; i < n; ++i) {
      const auto got = gpu_test::download(d_out[i].get(), want[i].size());
      ASSERT_EQ(got, want[i]) << "sample " << i << " type " << dtype_name(out_type) << " (seed "
                              << seed << ")";
    }
  }
}

TEST_F(NormalizeGpu, FoldsMatchCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  std::mt19937 gen(seed);
  const int parts_n = 5;
  const int64_t size = 300;
  std::vector<std::vector<float>> values(parts_n, std::vector<float>(size));
  std::vector<gpu_test::DeviceBuffer> d_values;
  std::vector<NormalizePart> host_parts(parts_n), dev_parts(parts_n);
  for (int k = 0; k < parts_n; ++k) {
    for (auto& v : values[k]) v = std::uniform_real_distribution<float>(0, 100)(gen);
    d_values.emplace_back(size * sizeof(float));
    upload(d_values.back(), values[k]);
    const int64_t count = k == 2 ? 0 : 1 + gen() % 1000;
    host_parts[k] = {values[k].data(), count};
    dev_parts[k] = {static_cast<const float*>(d_values.back().get()), count};
  }
  gpu_test::DeviceBuffer d_parts(sizeof(NormalizePart) * parts_n), d_out(size * 2 * sizeof(float));
  upload(d_parts, dev_parts);
  const auto* dp = static_cast<const NormalizePart*>(d_parts.get());
  float* out = static_cast<float*>(d_out.get());
  for (const NormalizeFoldParams params :
       {NormalizeFoldParams{NormalizeFoldKind::kMean, 0, 0, 1},
        NormalizeFoldParams{NormalizeFoldKind::kInvStdDev, 1, 0, 64},
        NormalizeFoldParams{NormalizeFoldKind::kInvStdDev, 0, 0.5f, 1}}) {
    // One fold over all parts, one over part 3 alone.
    std::vector<float> want(size * 2);
    normalize_fold_cpu({host_parts.data(), parts_n, want.data(), size}, params);
    normalize_fold_cpu({host_parts.data() + 3, 1, want.data() + size, size}, params);
    const std::vector<NormalizeFold> folds = {{dp, parts_n, out, size},
                                              {dp + 3, 1, out + size, size}};
    gpu_test::DeviceBuffer d_folds(sizeof(NormalizeFold) * folds.size());
    upload(d_folds, folds);
    normalize_fold_gpu(static_cast<const NormalizeFold*>(d_folds.get()), 2, size, params, nullptr);
    const auto got = gpu_test::download<float>(out, want.size());
    ASSERT_EQ(got, want) << "kind " << int(params.kind) << " (seed " << seed << ")";
  }
}

}  // namespace
}  // namespace sluice::kernels
