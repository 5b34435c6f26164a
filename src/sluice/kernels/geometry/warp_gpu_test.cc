// GPU tests (label gpu): the CUDA warp against warp_cpu on fresh random images and matrices,
// mixed sizes, NN and linear, fill and clamp, inverted maps and type pairs. Tolerance: none -
// both run the same operations, results must be bit-identical.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/geometry/warp_gpu.h"

namespace sluice::kernels {
namespace {

using gpu_test::DeviceBuffer;

// `channels` > 0: every sample has that many (the kernels specialised for 1 and 3); 0: mixed.
template <typename In, typename Out>
void check_types(DType in_type, DType out_type, std::mt19937& gen, int channels = 0) {
  const int n = 9;
  std::uniform_int_distribution<int64_t> ext(1, 300);
  std::uniform_real_distribution<float> val(-300.0f, 300.0f), unit(-1.0f, 1.0f);
  std::vector<std::vector<In>> in(n);
  std::vector<WarpSample> samples(n);
  std::vector<size_t> in_off(n), out_off(n);
  size_t in_bytes = 0, out_bytes = 0;
  for (int i = 0; i < n; ++i) {
    WarpSample& s = samples[i];
    s.in_h = ext(gen), s.in_w = ext(gen), s.out_h = ext(gen), s.out_w = ext(gen);
    s.channels = channels > 0 ? channels : 1 + i % 4;
    s.linear = i % 2 == 0;
    s.clamp = i % 3 == 0;
    s.invert = i % 4 == 1;
    s.fill = val(gen);
    const float a = unit(gen) * 3.0f;
    s.m[0] = std::cos(a) * (1 + unit(gen) / 2), s.m[1] = -std::sin(a), s.m[2] = val(gen) / 3;
    s.m[3] = std::sin(a), s.m[4] = std::cos(a) * (1 + unit(gen) / 2), s.m[5] = val(gen) / 3;
    in[i].resize(s.in_h * s.in_w * s.channels);
    for (In& v : in[i]) v = static_cast<In>(val(gen));
    in_off[i] = in_bytes;
    out_off[i] = out_bytes;
    in_bytes += (in[i].size() * sizeof(In) + 15) / 16 * 16;
    out_bytes += (s.out_h * s.out_w * s.channels * sizeof(Out) + 15) / 16 * 16;
  }
  DeviceBuffer d_in(in_bytes), d_out(out_bytes), d_desc(n * sizeof(WarpSample));
  cuda::Stream stream(0);
  int64_t max_h = 0, max_w = 0;
  std::vector<WarpSample> dev = samples;
  for (int i = 0; i < n; ++i) {
    cuda::memcpy_async(d_in.bytes() + in_off[i], in[i].data(), in[i].size() * sizeof(In),
                       stream.get());
    dev[i].in = d_in.bytes() + in_off[i];
    dev[i].out = d_out.bytes() + out_off[i];
    max_h = std::max(max_h, samples[i].out_h);
    max_w = std::max(max_w, samples[i].out_w);
  }
  cuda::memset_async(d_out.get(), 0xAB, out_bytes, stream.get());
  cuda::memcpy_async(d_desc.get(), dev.data(), n * sizeof(WarpSample), stream.get());
  warp_gpu(static_cast<const WarpSample*>(d_desc.get()), n, max_h, max_w, channels, in_type,
           out_type, stream.get());
  const auto host = gpu_test::download(d_out.get(), out_bytes, stream.get());
  for (int i = 0; i < n; ++i) {
    WarpSample s = samples[i];
    std::vector<Out> ref(s.out_h * s.out_w * s.channels);
    s.in = in[i].data();
    s.out = ref.data();
    warp_cpu(s, in_type, out_type);
    ASSERT_EQ(std::memcmp(host.data() + out_off[i], ref.data(), ref.size() * sizeof(Out)), 0)
        << "sample " << i << " " << dtype_name(in_type) << " -> " << dtype_name(out_type)
        << " linear " << s.linear << " clamp " << s.clamp << " invert " << s.invert;
  }
}

TEST(WarpGpu, MatchesCpuBitForBit) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const uint32_t seed = gpu_test::test_seed();
  SCOPED_TRACE(testing::Message() << "SLUICE_TEST_SEED=" << seed);
  std::mt19937 gen(seed);
  check_types<uint8_t, uint8_t>(DType::kUInt8, DType::kUInt8, gen);
  check_types<uint8_t, float>(DType::kUInt8, DType::kFloat32, gen);
  check_types<float, uint8_t>(DType::kFloat32, DType::kUInt8, gen);
  check_types<int16_t, int16_t>(DType::kInt16, DType::kInt16, gen);
  check_types<int32_t, int32_t>(DType::kInt32, DType::kInt32, gen);
  check_types<float, float>(DType::kFloat32, DType::kFloat32, gen);
  for (int channels : {1, 3}) {
    check_types<uint8_t, uint8_t>(DType::kUInt8, DType::kUInt8, gen, channels);
    check_types<uint8_t, float>(DType::kUInt8, DType::kFloat32, gen, channels);
    check_types<float, uint8_t>(DType::kFloat32, DType::kUInt8, gen, channels);
  }
}

}  // namespace
}  // namespace sluice::kernels
