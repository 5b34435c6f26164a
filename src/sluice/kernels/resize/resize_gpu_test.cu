// The CUDA resize kernels against the CPU reference on fresh random data (seed printed; set
// SLUICE_TEST_SEED to replay). Outputs are poisoned before each launch (0xFF: NaN for float and
// half) and followed by guard bytes that must survive. Tolerances (the brief's): uint8 within 1,
// float within 1e-3 relative, float16 within 1 ulp of the half of the reference. The kernels are
// designed to be bit-identical to the reference, so every mismatch is also reported and expected
// to be 0 (see Note [Bit-identical coefficients]).

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/resize/resize_gpu.h"
#include "sluice/kernels/resize/resize_test_util.h"

namespace sluice::kernels {
namespace {

using resize_test::TestSample;

constexpr uint8_t kPoison = 0xFF;
constexpr size_t kGuard = 64;

using gpu_test::DeviceBuffer;
using gpu_test::PinnedBuffer;

// One seed for the whole run (the tests offset it), printed once.
uint32_t test_seed() {
  static const uint32_t seed = [] {
    const uint32_t s = gpu_test::test_seed();
    std::cout << "[resize_gpu_test] SLUICE_TEST_SEED=" << s << std::endl;
    return s;
  }();
  return seed;
}

class ResizeGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
    cuda::set_device(0);
    stream_ = cuda::Stream(0);
    test_seed();
  }
  cuda::Stream stream_;
};

// Inputs uploaded, outputs allocated with guards and poisoned.
struct DeviceBatch {
  std::vector<DeviceBuffer> inputs, outputs;
  std::vector<size_t> out_bytes;
};

// Uploads and poisons on `stream` (a non-blocking stream does not wait for the legacy default
// stream, so plain cudaMemcpy / cudaMemset would race with the kernels).
DeviceBatch upload(const std::vector<TestSample>& batch, const std::vector<size_t>& out_bytes,
                   cuda::Stream& stream) {
  auto s = static_cast<cudaStream_t>(stream.get());
  DeviceBatch d;
  d.out_bytes = out_bytes;
  for (size_t i = 0; i < batch.size(); i++) {
    d.inputs.emplace_back(batch[i].in.size());
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(d.inputs.back().get(), batch[i].in.data(), batch[i].in.size(),
                                      cudaMemcpyHostToDevice, s));
    d.outputs.emplace_back(out_bytes[i] + kGuard);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(d.outputs.back().get(), kPoison, out_bytes[i] + kGuard, s));
  }
  stream.synchronize();  // the host vectors may go away after this
  return d;
}

std::vector<uint8_t> download(const DeviceBuffer& m) {
  std::vector<uint8_t> v(m.size());
  SLUICE_CUDA_CHECK(cudaMemcpy(v.data(), m.get(), m.size(), cudaMemcpyDeviceToHost));
  return v;
}

// Compares every sample with its reference; returns the number of inexact values.
// `fused`: outputs are the samples' crops (chw: planar), else their whole HWC outputs.
int64_t check_batch(const std::vector<TestSample>& batch, const DeviceBatch& d,
                    const std::vector<std::vector<uint8_t>>& refs, DType type, int64_t C,
                    bool fused, bool chw, const std::string& label) {
  int64_t inexact = 0, values = 0;
  double max_diff = 0;
  for (size_t i = 0; i < batch.size(); i++) {
    std::vector<uint8_t> got = download(d.outputs[i]);
    const std::string what = label + " " + resize_test::describe(batch[i], i);
    for (size_t k = d.out_bytes[i]; k < got.size(); k++) {
      if (got[k] != kPoison) {
        ADD_FAILURE() << what << ": wrote past the output at byte " << k;
        break;
      }
    }
    got.resize(d.out_bytes[i]);
    const ResizeCrop c = resize_test::resolved_crop(batch[i]);
    const int64_t h = fused ? c.height : batch[i].params.geometry.out_h;
    const int64_t w = fused ? c.width : batch[i].params.geometry.out_w;
    resize_test::Mismatch m = resize_test::compare_output(got, refs[i], type, h, w, C, chw);
    EXPECT_EQ(m.num_too_far, 0) << what << ": " << m.num_too_far << " of " << m.num_values
                                << " values outside the tolerance, max diff " << m.max_diff << "; "
                                << m.first_too_far;
    if (m.num_inexact > 0) {
      std::cout << "[resize_gpu_test] " << what << ": " << m.num_inexact << " of " << m.num_values
                << " values not bit-identical, max diff " << m.max_diff << "\n";
    }
    inexact += m.num_inexact;
    values += m.num_values;
    max_diff = std::max(max_diff, m.max_diff);
  }
  std::cout << "[resize_gpu_test] " << label << ": " << batch.size() << " samples, " << values
            << " values, " << inexact << " not bit-identical, max diff " << max_diff << std::endl;
  return inexact;
}

void run_resize(cuda::Stream& stream, const std::vector<TestSample>& batch, int C, DType type,
                const std::string& label) {
  const size_t elem = type == DType::kUInt8 ? 1 : 4;
  std::vector<size_t> out_bytes;
  std::vector<std::vector<uint8_t>> refs;
  for (const TestSample& s : batch) {
    out_bytes.push_back(s.params.geometry.out_h * s.params.geometry.out_w * C * elem);
    refs.push_back(resize_test::reference_resize(s, C, type));
  }
  DeviceBatch d = upload(batch, out_bytes, stream);
  std::vector<ResizeGpuSample> samples;
  for (size_t i = 0; i < batch.size(); i++) {
    samples.push_back({static_cast<const uint8_t*>(d.inputs[i].get()), batch[i].in_h, batch[i].in_w,
                       0, d.outputs[i].get(), batch[i].params});
  }
  const GpuScratchSizes need = resize_gpu_scratch_sizes(samples, C, type);
  PinnedBuffer host(need.host_bytes);
  DeviceBuffer device(need.device_bytes);
  // Stale tables or intermediates would show up as poison.
  SLUICE_CUDA_CHECK(cudaMemsetAsync(device.get(), 0xAB, need.device_bytes,
                                    static_cast<cudaStream_t>(stream.get())));
  resize_gpu(samples, C, type, {host.get(), need.host_bytes, device.get(), need.device_bytes},
             stream.get());
  stream.synchronize();
  SLUICE_CUDA_CHECK(cudaGetLastError());
  const int64_t inexact = check_batch(batch, d, refs, type, C, false, false, label);
  EXPECT_EQ(inexact, 0) << label << ": the kernels are designed to equal the reference exactly";
}

TEST_F(ResizeGpu, EveryFilterMatchesCpuReference) {
  const ResampleFilter kFilters[] = {ResampleFilter::kNearest,    ResampleFilter::kLinear,
                                     ResampleFilter::kTriangular, ResampleFilter::kCubic,
                                     ResampleFilter::kLanczos3,   ResampleFilter::kGaussian};
  uint32_t seed = test_seed();
  for (ResampleFilter f : kFilters) {
    for (int C : {1, 3}) {
      for (DType type : {DType::kUInt8, DType::kFloat32}) {
        std::vector<TestSample> batch = resize_test::make_batch(seed++, C, 16, 1000, false);
        for (size_t i = 0; i < batch.size(); i++) {
          batch[i].params.filters = {f, f, i % 3 != 2};
        }
        run_resize(stream_, batch, C, type,
                   make_string(resample_filter_name(f), " C=", C, " ", dtype_name(type)));
      }
    }
  }
}

TEST_F(ResizeGpu, MixedFiltersAndChannels) {
  uint32_t seed = test_seed() + 1000;
  for (int C = 1; C <= 4; C++) {
    for (DType type : {DType::kUInt8, DType::kFloat32}) {
      run_resize(stream_, resize_test::make_batch(seed++, C, 40, 1000, false), C, type,
                 make_string("mixed C=", C, " ", dtype_name(type)));
    }
  }
}

void run_fused(cuda::Stream& stream, const std::vector<TestSample>& batch, int C,
               ResizeOutputLayout layout, DType type, const std::string& label) {
  const size_t elem = type == DType::kFloat32 ? 4 : 2;
  std::vector<size_t> out_bytes;
  std::vector<std::vector<uint8_t>> refs;
  for (const TestSample& s : batch) {
    const ResizeCrop c = resize_test::resolved_crop(s);
    out_bytes.push_back(c.height * c.width * C * elem);
    refs.push_back(resize_test::reference_fused(s, C, layout, type));
  }
  DeviceBatch d = upload(batch, out_bytes, stream);
  std::vector<ResizeNormalizeGpuSample> samples;
  for (size_t i = 0; i < batch.size(); i++) {
    samples.push_back({static_cast<const uint8_t*>(d.inputs[i].get()), batch[i].in_h, batch[i].in_w,
                       0, d.outputs[i].get(), batch[i].params, batch[i].crop, batch[i].mirror,
                       batch[i].norm});
  }
  const GpuScratchSizes need = resize_normalize_gpu_scratch_sizes(samples, C, layout, type);
  PinnedBuffer host(need.host_bytes);
  DeviceBuffer device(need.device_bytes);
  SLUICE_CUDA_CHECK(cudaMemsetAsync(device.get(), 0xAB, need.device_bytes,
                                    static_cast<cudaStream_t>(stream.get())));
  resize_normalize_gpu(samples, C, layout, type,
                       {host.get(), need.host_bytes, device.get(), need.device_bytes},
                       stream.get());
  stream.synchronize();
  SLUICE_CUDA_CHECK(cudaGetLastError());
  const int64_t inexact =
      check_batch(batch, d, refs, type, C, true, layout == ResizeOutputLayout::kCHW, label);
  EXPECT_EQ(inexact, 0) << label << ": the kernels are designed to equal the reference exactly";
}

TEST_F(ResizeGpu, FusedNormalizeMatchesCpuComposition) {
  uint32_t seed = test_seed() + 2000;
  for (int C : {1, 3, 4}) {
    for (ResizeOutputLayout layout : {ResizeOutputLayout::kHWC, ResizeOutputLayout::kCHW}) {
      for (DType type : {DType::kFloat32, DType::kFloat16}) {
        run_fused(stream_, resize_test::make_batch(seed++, C, 24, 1000, true), C, layout, type,
                  make_string("fused C=", C, layout == ResizeOutputLayout::kCHW ? " CHW " : " HWC ",
                              dtype_name(type)));
      }
    }
  }
}

// Two batches back to back on one stream, reusing the scratch after an event: the pattern of an
// operator; the second batch must not see the first one's descriptors or tables.
TEST_F(ResizeGpu, ScratchReuseAcrossBatches) {
  const int C = 3;
  std::vector<TestSample> a = resize_test::make_batch(test_seed() + 3000, C, 12, 1000, false);
  std::vector<TestSample> b = resize_test::make_batch(test_seed() + 3001, C, 12, 1000, false);
  std::vector<size_t> bytes_a, bytes_b;
  for (auto& s : a) bytes_a.push_back(s.params.geometry.out_h * s.params.geometry.out_w * C);
  for (auto& s : b) bytes_b.push_back(s.params.geometry.out_h * s.params.geometry.out_w * C);
  DeviceBatch da = upload(a, bytes_a, stream_), db = upload(b, bytes_b, stream_);
  auto samples_of = [](const std::vector<TestSample>& t, const DeviceBatch& d) {
    std::vector<ResizeGpuSample> s;
    for (size_t i = 0; i < t.size(); i++) {
      s.push_back({static_cast<const uint8_t*>(d.inputs[i].get()), t[i].in_h, t[i].in_w, 0,
                   d.outputs[i].get(), t[i].params});
    }
    return s;
  };
  std::vector<ResizeGpuSample> sa = samples_of(a, da), sb = samples_of(b, db);
  GpuScratchSizes na = resize_gpu_scratch_sizes(sa, C, DType::kUInt8);
  GpuScratchSizes nb = resize_gpu_scratch_sizes(sb, C, DType::kUInt8);
  const size_t host_bytes = std::max(na.host_bytes, nb.host_bytes);
  const size_t device_bytes = std::max(na.device_bytes, nb.device_bytes);
  PinnedBuffer host(host_bytes);
  DeviceBuffer device(device_bytes);
  const GpuScratch scratch{host.get(), host_bytes, device.get(), device_bytes};
  cuda::Event copied(0);
  resize_gpu(sa, C, DType::kUInt8, scratch, stream_.get());
  copied.record(stream_.get());
  copied.synchronize();  // the host scratch may be rewritten once the stream has passed the call
  resize_gpu(sb, C, DType::kUInt8, scratch, stream_.get());
  stream_.synchronize();
  std::vector<std::vector<uint8_t>> ra, rb;
  for (auto& s : a) ra.push_back(resize_test::reference_resize(s, C, DType::kUInt8));
  for (auto& s : b) rb.push_back(resize_test::reference_resize(s, C, DType::kUInt8));
  EXPECT_EQ(check_batch(a, da, ra, DType::kUInt8, C, false, false, "reuse batch 1"), 0);
  EXPECT_EQ(check_batch(b, db, rb, DType::kUInt8, C, false, false, "reuse batch 2"), 0);
}

// The training graph at ImageNet scale: 256 RGB images of 500x375, a random window each,
// resized to 224x224 and normalised to CHW float32 (fused), and the plain uint8 resize. Prints
// the time per batch and the DRAM bandwidth of the byte model in resize_gpu.h (the kernels aim
// at memory-bound speed; compare with the device's ~3 TB/s); checks the last batch's outputs.
TEST_F(ResizeGpu, TrainingBatchThroughput) {
  const int C = 3, kBatch = 256, kIters = 20;
  std::mt19937 rng(test_seed() + 4000);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<TestSample> batch(kBatch);
  for (TestSample& s : batch) {
    s.in_h = 375;
    s.in_w = 500;
    s.in.resize(375 * 500 * C);
    for (auto& v : s.in) v = static_cast<uint8_t>(1 + rng() % 255);
    const double h = (0.35 + 0.65 * unit(rng)) * 375, w = (0.35 + 0.65 * unit(rng)) * 500;
    const double y0 = unit(rng) * (375 - h), x0 = unit(rng) * (500 - w);
    s.params.geometry = {224, 224, y0, x0, y0 + h, x0 + w};
    s.params.filters = {ResampleFilter::kLinear, ResampleFilter::kLinear, true};
    s.mirror = rng() % 2;
    s.norm.mean = {123.675f, 116.28f, 103.53f, 0};
    s.norm.stddev = {58.395f, 57.12f, 57.375f, 1};
  }
  std::vector<size_t> out_bytes(kBatch, 224 * 224 * C * 4);
  DeviceBatch d = upload(batch, out_bytes, stream_);
  std::vector<ResizeNormalizeGpuSample> fused;
  std::vector<ResizeGpuSample> plain;
  for (int i = 0; i < kBatch; i++) {
    fused.push_back({static_cast<const uint8_t*>(d.inputs[i].get()),
                     375,
                     500,
                     0,
                     d.outputs[i].get(),
                     batch[i].params,
                     {},
                     batch[i].mirror,
                     batch[i].norm});
    plain.push_back({static_cast<const uint8_t*>(d.inputs[i].get()), 375, 500, 0,
                     d.outputs[i].get(), batch[i].params});
  }
  const GpuScratchSizes nf =
      resize_normalize_gpu_scratch_sizes(fused, C, ResizeOutputLayout::kCHW, DType::kFloat32);
  const GpuScratchSizes np = resize_gpu_scratch_sizes(plain, C, DType::kUInt8);
  PinnedBuffer host(std::max(nf.host_bytes, np.host_bytes));
  DeviceBuffer device(std::max(nf.device_bytes, np.device_bytes));
  const GpuScratch scratch{host.get(), std::max(nf.host_bytes, np.host_bytes), device.get(),
                           std::max(nf.device_bytes, np.device_bytes)};
  cudaEvent_t start, stop;
  SLUICE_CUDA_CHECK(cudaEventCreate(&start));
  SLUICE_CUDA_CHECK(cudaEventCreate(&stop));
  auto time_batches = [&](auto&& launch) {
    launch();  // warm-up
    stream_.synchronize();
    SLUICE_CUDA_CHECK(cudaEventRecord(start, static_cast<cudaStream_t>(stream_.get())));
    for (int it = 0; it < kIters; it++) launch();
    SLUICE_CUDA_CHECK(cudaEventRecord(stop, static_cast<cudaStream_t>(stream_.get())));
    SLUICE_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    SLUICE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms / kIters;
  };
  // Reusing the pinned scratch while earlier copies may be pending is safe here only because
  // every iteration writes the same descriptors.
  const double ms_plain =
      time_batches([&] { resize_gpu(plain, C, DType::kUInt8, scratch, stream_.get()); });
  const double ms_fused = time_batches([&] {
    resize_normalize_gpu(fused, C, ResizeOutputLayout::kCHW, DType::kFloat32, scratch,
                         stream_.get());
  });
  SLUICE_CUDA_CHECK(cudaEventDestroy(start));
  SLUICE_CUDA_CHECK(cudaEventDestroy(stop));
  // Byte model: input rows read, intermediate written + read, output written.
  double bytes_plain = 0, bytes_fused = 0;
  for (const TestSample& s : batch) {
    const double rows = std::min(375.0, std::ceil(s.params.geometry.src_y1) + 2) -
                        std::max(0.0, std::floor(s.params.geometry.src_y0) - 2);
    const double common = rows * 500 * C + 2 * rows * 224 * C;
    bytes_plain += common + 224 * 224 * C;
    bytes_fused += common + 224 * 224 * C * 4;
  }
  std::cout << "[resize_gpu_test] 256 x 500x375 RGB -> 224x224 (random windows, LINEAR aa): "
            << "uint8 " << ms_plain << " ms/batch (" << kBatch / ms_plain * 1e3 << " img/s, ~"
            << bytes_plain / ms_plain * 1e-6 << " GB/s); fused CHW float32 " << ms_fused
            << " ms/batch (" << kBatch / ms_fused * 1e3 << " img/s, ~"
            << bytes_fused / ms_fused * 1e-6 << " GB/s)" << std::endl;
  EXPECT_GT(ms_plain, 0);
  std::vector<std::vector<uint8_t>> refs;
  std::vector<TestSample> head(batch.begin(), batch.begin() + 8);
  for (TestSample& s : head) {
    refs.push_back(resize_test::reference_fused(s, C, ResizeOutputLayout::kCHW, DType::kFloat32));
  }
  DeviceBatch head_d;
  for (int i = 0; i < 8; i++) head_d.outputs.push_back(std::move(d.outputs[i]));
  head_d.out_bytes.assign(8, 224 * 224 * C * 4);
  EXPECT_EQ(check_batch(head, head_d, refs, DType::kFloat32, C, true, true, "throughput"), 0);
}

}  // namespace
}  // namespace sluice::kernels
