// GPU tests (label gpu): convolve_axis_gpu against convolve_axis_cpu on fresh random data, for
// passes of mixed shapes (windows larger than the axis included), every border mode and the
// type pairs the operators use, outputs poisoned beforehand. Bit-exact: both sides share the
// per-element code (convolution_element.h).

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/convolution/convolution.h"
#include "sluice/kernels/convolution/convolution_gpu.h"
#include "sluice/kernels/convolution/filter.h"

namespace sluice::kernels::conv {
namespace {

constexpr uint8_t kPoison = 0x5B;

void check(DType in_type, DType out_type, Border border, std::mt19937& gen) {
  const int n = 7;
  const size_t is = dtype_size(in_type), os = dtype_size(out_type);
  std::vector<AxisPass> passes(n);
  std::vector<std::vector<float>> windows(n);
  std::vector<int64_t> in_off(n), out_off(n), w_off(n);
  int64_t in_total = 0, out_total = 0, w_total = 0, max_elements = 0;
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int i = 0; i < n; ++i) {
    AxisPass& p = passes[i];
    p.outer = std::uniform_int_distribution<int64_t>(1, 4)(gen);
    p.extent = std::uniform_int_distribution<int64_t>(1, 60)(gen);
    p.inner = std::uniform_int_distribution<int64_t>(1, 5)(gen);
    p.size = 2 * std::uniform_int_distribution<int>(0, 12)(gen) + 1;
    p.anchor = std::uniform_int_distribution<int>(0, p.size - 1)(gen);
    p.scale = 1.0f + u(gen);
    p.fill = 3.0f;
    p.border = border;
    for (int k = 0; k < p.size; ++k) windows[i].push_back(u(gen));
    const int64_t e = p.outer * p.extent * p.inner;
    in_off[i] = in_total;
    out_off[i] = out_total;
    w_off[i] = w_total;
    in_total += (e * is + 15) / 16 * 16;
    out_total += (e * os + 15) / 16 * 16 + 16;
    w_total += p.size;
    max_elements = std::max(max_elements, e);
  }
  std::vector<uint8_t> in(in_total);
  for (size_t k = 0; k * is < in.size(); ++k) {
    const float v = 100 * u(gen);  // floats: finite values (NaN payloads may differ)
    if (in_type == DType::kFloat32) {
      std::memcpy(in.data() + k * 4, &v, 4);
    } else if (in_type == DType::kFloat64) {
      const double d = v;
      std::memcpy(in.data() + k * 8, &d, 8);
    } else if (in_type == DType::kFloat16) {
      const uint16_t h = float_to_half_bits(v);
      std::memcpy(in.data() + k * 2, &h, 2);
    } else {
      for (size_t b = 0; b < is; ++b) in[k * is + b] = static_cast<uint8_t>(gen());
    }
  }
  std::vector<float> all_windows;
  for (const auto& w : windows) all_windows.insert(all_windows.end(), w.begin(), w.end());
  std::vector<uint8_t> want(out_total, kPoison);
  for (int i = 0; i < n; ++i) {
    AxisPass p = passes[i];
    p.in = in.data() + in_off[i];
    p.out = want.data() + out_off[i];
    p.window = windows[i].data();
    convolve_axis_cpu(p, in_type, out_type);
  }
  gpu_test::DeviceBuffer d_in(in.size()), d_out(want.size()), d_w(all_windows.size() * 4),
      d_desc(sizeof(AxisPass) * n);
  cuda::memcpy_async(d_in.get(), in.data(), in.size(), nullptr);
  cuda::memcpy_async(d_w.get(), all_windows.data(), all_windows.size() * 4, nullptr);
  cuda::memset_async(d_out.get(), kPoison, want.size(), nullptr);
  for (int i = 0; i < n; ++i) {
    passes[i].in = d_in.bytes() + in_off[i];
    passes[i].out = d_out.bytes() + out_off[i];
    passes[i].window = static_cast<const float*>(d_w.get()) + w_off[i];
  }
  cuda::memcpy_async(d_desc.get(), passes.data(), sizeof(AxisPass) * n, nullptr);
  convolve_axis_gpu(static_cast<const AxisPass*>(d_desc.get()), n, max_elements, in_type, out_type,
                    nullptr);
  const auto got = gpu_test::download(d_out.get(), want.size());
  ASSERT_TRUE(gpu_test::same_elements(got, want))
      << dtype_name(in_type) << " -> " << dtype_name(out_type) << ", border "
      << static_cast<int>(border);
}

class ConvolutionGpu : public gpu_test::GpuTest {};

TEST_F(ConvolutionGpu, PassesMatchCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  std::mt19937 gen(seed);
  for (Border b : {Border::kReflect101, Border::kReflect1001, Border::kWrap, Border::kClamp,
                   Border::kConstant}) {
    check(DType::kUInt8, DType::kFloat32, b, gen);
    check(DType::kFloat32, DType::kUInt8, b, gen);
  }
  for (DType t : {DType::kInt8, DType::kUInt16, DType::kInt16, DType::kInt32, DType::kUInt32,
                  DType::kInt64, DType::kUInt64, DType::kFloat16, DType::kFloat64}) {
    check(t, t, Border::kReflect101, gen);
    check(t, DType::kFloat32, Border::kReflect101, gen);
    check(DType::kFloat32, t, Border::kReflect101, gen);
  }
}

// filter_gpu against filter_cpu: 2-D and 3-D samples, random kernels (zero taps included),
// anchors and border modes, a fill value, FLOAT rows whose length is not a multiple of 8.
void check_filter(DType in_type, DType out_type, std::mt19937& gen) {
  const int n = 6;
  const size_t is = dtype_size(in_type), os = dtype_size(out_type);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<FilterSample> samples(n);
  std::vector<std::vector<float>> kernels(n);
  std::vector<std::vector<uint8_t>> ins(n), wants(n);
  std::vector<uint8_t> fill(8, 7);
  for (int i = 0; i < n; ++i) {
    FilterSample& s = samples[i];
    s.axes = i % 3 == 2 ? 3 : 2;
    s.outer = 1 + i % 2;
    s.channels = 1 + i % 3;
    s.border = static_cast<Border>(i % 5);
    int64_t in_vol = s.outer * s.channels, k_vol = 1;
    for (int a = 0; a < s.axes; ++a) {
      s.in_extent[a] = s.out_extent[a] = std::uniform_int_distribution<int64_t>(1, 20)(gen);
      s.k_extent[a] = std::uniform_int_distribution<int32_t>(1, 7)(gen);
      s.anchor[a] = std::uniform_int_distribution<int32_t>(0, s.k_extent[a] - 1)(gen);
      in_vol *= s.in_extent[a];
      k_vol *= s.k_extent[a];
    }
    for (int64_t k = 0; k < k_vol; ++k) kernels[i].push_back(k % 4 == 3 ? 0.0f : u(gen));
    ins[i].resize(in_vol * is);
    for (size_t k = 0; k < ins[i].size(); k += is) {
      if (in_type == DType::kFloat32) {
        const float v = 100 * u(gen);
        std::memcpy(&ins[i][k], &v, 4);
      } else {
        for (size_t b = 0; b < is; ++b) ins[i][k + b] = static_cast<uint8_t>(gen());
      }
    }
    wants[i].assign(s.out_volume() * os, kPoison);
    FilterSample c = s;
    c.in = ins[i].data();
    c.out = wants[i].data();
    c.kernel = kernels[i].data();
    c.fill = fill.data();
    filter_cpu(c, in_type, out_type);
  }
  std::vector<gpu_test::DeviceBuffer> d_in, d_out, d_k;
  gpu_test::DeviceBuffer d_fill(fill.size()), d_desc(sizeof(FilterSample) * n);
  cuda::memcpy_async(d_fill.get(), fill.data(), fill.size(), nullptr);
  int64_t max_elements = 0;
  for (int i = 0; i < n; ++i) {
    d_in.emplace_back(ins[i].size());
    d_out.emplace_back(wants[i].size());
    d_k.emplace_back(kernels[i].size() * 4);
    cuda::memcpy_async(d_in[i].get(), ins[i].data(), ins[i].size(), nullptr);
    cuda::memcpy_async(d_k[i].get(), kernels[i].data(), kernels[i].size() * 4, nullptr);
    cuda::memset_async(d_out[i].get(), kPoison, wants[i].size(), nullptr);
    samples[i].in = d_in[i].get();
    samples[i].out = d_out[i].get();
    samples[i].kernel = static_cast<const float*>(d_k[i].get());
    samples[i].fill = d_fill.get();
    max_elements = std::max(max_elements, samples[i].out_volume());
  }
  cuda::memcpy_async(d_desc.get(), samples.data(), sizeof(FilterSample) * n, nullptr);
  filter_gpu(static_cast<const FilterSample*>(d_desc.get()), n, max_elements, in_type, out_type,
             nullptr);
  for (int i = 0; i < n; ++i) {
    const auto got = gpu_test::download(d_out[i].get(), wants[i].size());
    ASSERT_EQ(got, wants[i]) << dtype_name(in_type) << " -> " << dtype_name(out_type) << ", sample "
                             << i;
  }
}

TEST_F(ConvolutionGpu, FilterMatchesCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  std::mt19937 gen(seed);
  for (DType t : {DType::kUInt8, DType::kUInt16, DType::kInt16, DType::kFloat32}) {
    check_filter(t, t, gen);
    check_filter(t, DType::kFloat32, gen);
  }
}

}  // namespace
}  // namespace sluice::kernels::conv
