// GPU tests (label gpu): the CUDA coord_transform against coord_transform_cpu on fresh random
// points, mixed sample sizes (empty ones included) and every input type. Tolerance: none - both
// run the same operations, results must be bit-identical.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/geometry/coord_transform_gpu.h"

namespace sluice::kernels {
namespace {

using gpu_test::DeviceBuffer;

template <typename In, typename Out>
void check_types(DType in_type, DType out_type, std::mt19937& gen) {
  const int n = 7;
  std::uniform_int_distribution<int> npoints(0, 5000), dims(1, kMaxPointDims);
  std::uniform_real_distribution<float> val(-300.0f, 300.0f);
  const int in_dim = dims(gen), out_dim = dims(gen);
  std::vector<std::vector<In>> in(n);
  std::vector<CoordTransformGpuSample> samples(n);
  size_t in_bytes = 0, out_bytes = 0;
  std::vector<size_t> in_off(n), out_off(n);
  for (int i = 0; i < n; ++i) {
    const int64_t pts = i == 2 ? 0 : npoints(gen);
    in[i].resize(pts * in_dim);
    for (In& v : in[i]) v = static_cast<In>(val(gen));
    auto& p = samples[i].params;
    p.in_dim = in_dim;
    p.out_dim = out_dim;
    for (float& v : p.m) v = val(gen) / 100.0f;
    for (float& v : p.t) v = val(gen);
    samples[i].num_points = pts;
    in_off[i] = in_bytes;
    out_off[i] = out_bytes;
    in_bytes += (pts * in_dim * sizeof(In) + 15) / 16 * 16;
    out_bytes += (pts * out_dim * sizeof(Out) + 15) / 16 * 16;
  }
  DeviceBuffer d_in(in_bytes), d_out(out_bytes), d_desc(n * sizeof(CoordTransformGpuSample));
  cuda::Stream stream(0);
  int64_t max_points = 0;
  for (int i = 0; i < n; ++i) {
    cuda::memcpy_async(d_in.bytes() + in_off[i], in[i].data(), in[i].size() * sizeof(In),
                       stream.get());
    samples[i].in = d_in.bytes() + in_off[i];
    samples[i].out = d_out.bytes() + out_off[i];
    max_points = std::max(max_points, samples[i].num_points);
  }
  cuda::memset_async(d_out.get(), 0xAB, out_bytes, stream.get());
  cuda::memcpy_async(d_desc.get(), samples.data(), n * sizeof(CoordTransformGpuSample),
                     stream.get());
  coord_transform_gpu(static_cast<const CoordTransformGpuSample*>(d_desc.get()), n, max_points,
                      in_type, out_type, stream.get());
  const auto host = gpu_test::download(d_out.get(), out_bytes, stream.get());
  for (int i = 0; i < n; ++i) {
    std::vector<Out> ref(samples[i].num_points * out_dim);
    coord_transform_cpu(in[i].data(), in_type, ref.data(), out_type, samples[i].num_points,
                        samples[i].params);
    ASSERT_EQ(std::memcmp(host.data() + out_off[i], ref.data(), ref.size() * sizeof(Out)), 0)
        << "sample " << i << " " << dtype_name(in_type) << " -> " << dtype_name(out_type);
  }
}

TEST(CoordTransformGpu, MatchesCpuBitForBit) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const uint32_t seed = gpu_test::test_seed();
  SCOPED_TRACE(testing::Message() << "SLUICE_TEST_SEED=" << seed);
  std::mt19937 gen(seed);
  check_types<float, float>(DType::kFloat32, DType::kFloat32, gen);
  check_types<uint8_t, uint8_t>(DType::kUInt8, DType::kUInt8, gen);
  check_types<uint8_t, float>(DType::kUInt8, DType::kFloat32, gen);
  check_types<int16_t, int16_t>(DType::kInt16, DType::kInt16, gen);
  check_types<uint16_t, float>(DType::kUInt16, DType::kFloat32, gen);
  check_types<int32_t, int32_t>(DType::kInt32, DType::kInt32, gen);
}

}  // namespace
}  // namespace sluice::kernels
