// GPU tests (label gpu): erase_gpu against erase_cpu on fresh random data: a batch of samples of
// mixed ranks, sizes, boxes and fill values, every element size, out of place into a poisoned
// buffer and in place. Bit-exact.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/erase/erase.h"

namespace sluice::kernels {
namespace {

class EraseGpu : public gpu_test::GpuTest {};

void check(size_t elem, bool in_place, uint32_t seed) {
  std::mt19937 gen(seed);
  const int n = 23;
  std::vector<EraseSample> samples(n);
  std::vector<EraseBox> boxes;
  std::vector<uint64_t> fill;
  std::vector<int64_t> offset(n);
  int64_t total = 0, max_volume = 0;
  for (int i = 0; i < n; ++i) {
    EraseSample& s = samples[i];
    s.ndim = 1 + static_cast<int>(gen() % kEraseMaxDims);
    s.volume = 1;
    for (int d = 0; d < s.ndim; ++d) {
      s.extent[d] = i == 0 ? 0 : 1 + gen() % (s.ndim > 2 ? 12 : 300);
      s.volume *= s.extent[d];
    }
    s.first_box = static_cast<int64_t>(boxes.size());
    s.num_boxes = static_cast<int>(gen() % 4);
    for (int k = 0; k < s.num_boxes; ++k) {
      EraseBox b{};
      for (int d = 0; d < s.ndim; ++d) {
        b.lo[d] = gen() % (s.extent[d] + 1);
        b.hi[d] = b.lo[d] + gen() % (s.extent[d] + 1 - b.lo[d]);
      }
      boxes.push_back(b);
    }
    s.channel_dim = i % 3 == 0 ? -1 : static_cast<int>(gen() % s.ndim);
    s.first_fill = static_cast<int64_t>(fill.size());
    s.num_fill = s.channel_dim < 0 ? 1 : static_cast<int>(s.extent[s.channel_dim]);
    for (int c = 0; c < s.num_fill; ++c) fill.push_back((uint64_t{gen()} << 32) | gen());
    offset[i] = total;
    total += (s.volume + 3) / 4 * 4 + 4;  // a poisoned gap after each sample
    max_volume = std::max(max_volume, s.volume);
  }
  const size_t bytes = static_cast<size_t>(total) * elem;
  std::vector<uint8_t> in(bytes), want(bytes, 0xA5);
  for (auto& b : in) b = static_cast<uint8_t>(gen() | 1);
  if (in_place) want = in;
  for (int i = 0; i < n; ++i) {
    EraseSample s = samples[i];
    s.in = in.data() + offset[i] * elem;
    s.out = want.data() + offset[i] * elem;
    s.first_box = 0;
    s.first_fill = 0;
    erase_cpu(s, boxes.data() + samples[i].first_box, fill.data() + samples[i].first_fill, elem);
  }
  gpu_test::DeviceBuffer d_in(bytes), d_out(bytes), d_samples(sizeof(EraseSample) * n),
      d_boxes(sizeof(EraseBox) * boxes.size()), d_fill(sizeof(uint64_t) * fill.size());
  cuda::memcpy_async(d_in.get(), in.data(), bytes, nullptr);
  cuda::memset_async(d_out.get(), 0xA5, bytes, nullptr);
  uint8_t* dst = in_place ? d_in.bytes() : d_out.bytes();
  for (int i = 0; i < n; ++i) {
    samples[i].in = d_in.bytes() + offset[i] * elem;
    samples[i].out = dst + offset[i] * elem;
  }
  cuda::memcpy_async(d_samples.get(), samples.data(), sizeof(EraseSample) * n, nullptr);
  cuda::memcpy_async(d_boxes.get(), boxes.data(), sizeof(EraseBox) * boxes.size(), nullptr);
  cuda::memcpy_async(d_fill.get(), fill.data(), sizeof(uint64_t) * fill.size(), nullptr);
  erase_gpu(static_cast<const EraseSample*>(d_samples.get()), n,
            static_cast<const EraseBox*>(d_boxes.get()), static_cast<const uint64_t*>(d_fill.get()),
            max_volume, elem, nullptr);
  const auto got = gpu_test::download(dst, bytes);
  ASSERT_TRUE(gpu_test::same_elements(got, want))
      << "element size " << elem << " (seed " << seed << ")";
}

TEST_F(EraseGpu, MixedBatchMatchesCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  for (size_t elem : {1, 2, 4, 8}) check(elem, false, seed + static_cast<uint32_t>(elem));
}

TEST_F(EraseGpu, InPlaceMatchesCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  for (size_t elem : {1, 4}) check(elem, true, seed + static_cast<uint32_t>(elem));
}

}  // namespace
}  // namespace sluice::kernels
