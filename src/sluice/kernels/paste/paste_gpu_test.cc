// GPU tests (label gpu): paste_gpu and multi_paste_gpu against their CPU references on fresh
// random data (mixed sizes and channels, overlapping regions, every type pair), into poisoned
// buffers. Bit-exact.

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/paste/paste.h"

namespace sluice::kernels {
namespace {

class PasteGpu : public gpu_test::GpuTest {};

TEST_F(PasteGpu, MixedBatchMatchesCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  std::mt19937 gen(seed);
  const int n = 17;
  std::vector<PasteSample> samples(n);
  std::vector<int64_t> in_off(n), out_off(n);
  int64_t in_total = 0, out_total = 0, max_height = 0;
  for (int i = 0; i < n; ++i) {
    PasteSample& s = samples[i];
    s.in_height = 1 + gen() % 200;
    s.in_width = 1 + gen() % 200;
    s.channels = 1 + gen() % 4;
    s.out_height = s.in_height + gen() % 150;
    s.out_width = s.in_width + gen() % 150;
    s.y = gen() % (s.out_height - s.in_height + 1);
    s.x = gen() % (s.out_width - s.in_width + 1);
    in_off[i] = in_total;
    in_total += s.in_height * s.in_width * s.channels;
    out_off[i] = out_total;
    const int64_t elements = s.out_height * s.out_width * s.channels;
    out_total += elements + 3;
    max_height = std::max(max_height, s.out_height);
  }
  const std::vector<uint8_t> fill = {3, 1, 4, 1};
  std::vector<uint8_t> in(in_total), want(out_total, 0xA5);
  for (auto& v : in) v = static_cast<uint8_t>(gen() | 1);
  for (int i = 0; i < n; ++i) {
    PasteSample s = samples[i];
    s.in = in.data() + in_off[i];
    s.out = want.data() + out_off[i];
    paste_cpu(s, fill.data());
  }
  gpu_test::DeviceBuffer d_in(in.size()), d_out(want.size()), d_samples(sizeof(PasteSample) * n),
      d_fill(fill.size());
  cuda::memcpy_async(d_in.get(), in.data(), in.size(), nullptr);
  cuda::memset_async(d_out.get(), 0xA5, want.size(), nullptr);
  cuda::memcpy_async(d_fill.get(), fill.data(), fill.size(), nullptr);
  for (int i = 0; i < n; ++i) {
    samples[i].in = d_in.bytes() + in_off[i];
    samples[i].out = d_out.bytes() + out_off[i];
  }
  cuda::memcpy_async(d_samples.get(), samples.data(), sizeof(PasteSample) * n, nullptr);
  paste_gpu(static_cast<const PasteSample*>(d_samples.get()), n, d_fill.bytes(), max_height,
            nullptr);
  const auto got = gpu_test::download(d_out.get(), want.size());
  ASSERT_TRUE(gpu_test::same_elements(got, want));
}

template <typename Out, typename In>
void check_multi_paste(DType out_type, DType in_type, uint32_t seed) {
  std::mt19937 gen(seed);
  const int n = 9;
  // Sources: n images of 3 channels; canvases of 3 channels with regions from any source.
  std::vector<int64_t> ih(n), iw(n), in_off(n);
  int64_t in_total = 0;
  for (int i = 0; i < n; ++i) {
    ih[i] = 1 + gen() % 90;
    iw[i] = 1 + gen() % 90;
    in_off[i] = in_total;
    in_total += ih[i] * iw[i] * 3;
  }
  std::vector<In> in(in_total);
  for (auto& v : in) {
    if constexpr (std::is_floating_point_v<In>) {
      v = std::uniform_real_distribution<In>(-400, 70000)(gen);
    } else {
      v = static_cast<In>(std::uniform_int_distribution<int64_t>(
          std::numeric_limits<In>::lowest(), std::numeric_limits<In>::max())(gen));
    }
  }
  std::vector<MultiPasteSample> samples(n);
  std::vector<PasteRegion> regions;
  std::vector<int64_t> out_off(n);
  int64_t out_total = 0, max_pixels = 0;
  for (int i = 0; i < n; ++i) {
    MultiPasteSample& s = samples[i];
    s = {nullptr, 1 + static_cast<int64_t>(gen() % 120), 1 + static_cast<int64_t>(gen() % 120),
         3,       static_cast<int64_t>(regions.size()),  static_cast<int>(gen() % 5)};
    for (int k = 0; k < s.num_regions; ++k) {
      const int j = static_cast<int>(gen() % n);
      PasteRegion r{nullptr, iw[j], 0, 0, 0, 0, 0, 0};
      r.height = gen() % (std::min(ih[j], s.height) + 1);
      r.width = gen() % (std::min(iw[j], s.width) + 1);
      r.in_y = gen() % (ih[j] - r.height + 1);
      r.in_x = gen() % (iw[j] - r.width + 1);
      r.out_y = gen() % (s.height - r.height + 1);
      r.out_x = gen() % (s.width - r.width + 1);
      r.in = reinterpret_cast<const void*>(in_off[j]);  // an offset until the pointers are known
      regions.push_back(r);
    }
    out_off[i] = out_total;
    out_total += s.height * s.width * 3 + 2;
    max_pixels = std::max(max_pixels, s.height * s.width);
  }
  std::vector<Out> want(out_total, Out{77});
  std::vector<PasteRegion> host_regions = regions;
  for (auto& r : host_regions) r.in = in.data() + reinterpret_cast<int64_t>(r.in);
  for (int i = 0; i < n; ++i) {
    MultiPasteSample s = samples[i];
    s.out = want.data() + out_off[i];
    multi_paste_cpu(s, host_regions.data(), out_type, in_type);
  }
  gpu_test::DeviceBuffer d_in(sizeof(In) * in.size()), d_out(sizeof(Out) * want.size()),
      d_samples(sizeof(MultiPasteSample) * n), d_regions(sizeof(PasteRegion) * regions.size());
  cuda::memcpy_async(d_in.get(), in.data(), d_in.size(), nullptr);
  std::vector<Out> poison(want.size(), Out{77});
  cuda::memcpy_async(d_out.get(), poison.data(), d_out.size(), nullptr);
  for (auto& r : regions)
    r.in = static_cast<const In*>(d_in.get()) + reinterpret_cast<int64_t>(r.in);
  for (int i = 0; i < n; ++i) samples[i].out = static_cast<Out*>(d_out.get()) + out_off[i];
  cuda::memcpy_async(d_samples.get(), samples.data(), d_samples.size(), nullptr);
  cuda::memcpy_async(d_regions.get(), regions.data(), d_regions.size(), nullptr);
  multi_paste_gpu(static_cast<const MultiPasteSample*>(d_samples.get()), n,
                  static_cast<const PasteRegion*>(d_regions.get()), max_pixels, out_type, in_type,
                  nullptr);
  const auto got = gpu_test::download<Out>(d_out.get(), want.size());
  ASSERT_TRUE(gpu_test::same_elements(got, want)) << "seed " << seed;
}

TEST_F(PasteGpu, MultiPasteMatchesCpuForEveryTypePair) {
  const uint32_t seed = gpu_test::printed_test_seed();
  check_multi_paste<uint8_t, float>(DType::kUInt8, DType::kFloat32, seed);
  check_multi_paste<float, uint8_t>(DType::kFloat32, DType::kUInt8, seed + 1);
  check_multi_paste<int16_t, int32_t>(DType::kInt16, DType::kInt32, seed + 2);
  check_multi_paste<int32_t, int16_t>(DType::kInt32, DType::kInt16, seed + 3);
  check_multi_paste<uint8_t, uint8_t>(DType::kUInt8, DType::kUInt8, seed + 4);
  check_multi_paste<float, float>(DType::kFloat32, DType::kFloat32, seed + 5);
}

}  // namespace
}  // namespace sluice::kernels
