// CPU resize: a 500x375 RGB uint8 image (ImageNet's typical size) to 224x224, per filter, with
// the scratch reused across iterations as an operator would. Reports images/s and input bytes/s.
// BM_ResizeCpuU8 covers the random-resized-crop shapes of a training pipeline (crops of 150x150
// to 600x500 to 224x224), 1, 3 and 4 channels, and compares resize_cpu with the scalar reference
// loops and with the vectorised kernels limited to SSE2.

#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "sluice/kernels/resize/detail/resample_fixed_point.h"
#include "sluice/kernels/resize/detail/resize_cpu_reference.h"
#include "sluice/kernels/resize/resize_cpu.h"

namespace sluice::kernels {
namespace {

constexpr int64_t kInH = 375, kInW = 500, kOut = 224, kC = 3;

std::vector<uint8_t> random_image() {
  std::vector<uint8_t> im(kInH * kInW * kC);
  std::mt19937 rng(42);
  for (auto& v : im) v = static_cast<uint8_t>(rng());
  return im;
}

std::string make_label(int64_t h, int64_t w, int64_t c, ResampleFilter f, int64_t impl) {
  const char* kImpl[] = {"resize_cpu", "scalar reference", "SSE2"};
  return std::to_string(h) + "x" + std::to_string(w) + "x" + std::to_string(c) + " " +
         std::string(resample_filter_name(f)) + " " + kImpl[impl];
}

// state.range(0): ResampleFilter; range(1): output type (0 uint8, 1 float);
// range(2): 1 = a random-resized-crop-like window (60% x 70% of the image) instead of all of it.
void BM_ResizeCpu(benchmark::State& state) {
  const auto filter = static_cast<ResampleFilter>(state.range(0));
  const DType out_type = state.range(1) ? DType::kFloat32 : DType::kUInt8;
  const std::vector<uint8_t> in = random_image();
  std::vector<float> out(kOut * kOut * kC);
  ResizeSampleParams p;
  p.geometry = {kOut, kOut, 0, 0, static_cast<double>(kInH), static_cast<double>(kInW)};
  if (state.range(2)) p.geometry = {kOut, kOut, 40.5, 75.25, 40.5 + 0.6 * kInH, 75.25 + 0.7 * kInW};
  p.filters = {filter, filter, true};
  ConstHwcImage src(in.data(), DType::kUInt8, kInH, kInW, kC);
  HwcImage dst{out.data(), out_type, kOut, kOut, kC};
  std::vector<std::byte> scratch(resize_cpu_scratch_size(src, dst, p));
  for (auto _ : state) {
    resize_cpu(src, dst, p, scratch);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * kInH * kInW * kC);
  state.SetLabel(std::string(resample_filter_name(filter)) +
                 (out_type == DType::kUInt8 ? " u8" : " f32") + (state.range(2) ? " crop" : ""));
}

BENCHMARK(BM_ResizeCpu)
    ->ArgNames({"filter", "float_out", "crop"})
    ->Args({static_cast<int>(ResampleFilter::kLinear), 0, 0})
    ->Args({static_cast<int>(ResampleFilter::kLinear), 0, 1})
    ->Args({static_cast<int>(ResampleFilter::kLinear), 1, 0})
    ->Args({static_cast<int>(ResampleFilter::kNearest), 0, 0})
    ->Args({static_cast<int>(ResampleFilter::kCubic), 0, 0})
    ->Args({static_cast<int>(ResampleFilter::kLanczos3), 0, 0})
    ->Args({static_cast<int>(ResampleFilter::kGaussian), 0, 0})
    ->Unit(benchmark::kMicrosecond);

// state.range(0), (1): input height, width (the whole image is the window); (2): channels;
// (3): ResampleFilter; (4): 0 resize_cpu, 1 the scalar reference, 2 the SSE2 kernels.
void BM_ResizeCpuU8(benchmark::State& state) {
  const int64_t in_h = state.range(0), in_w = state.range(1), c = state.range(2);
  const auto filter = static_cast<ResampleFilter>(state.range(3));
  const int64_t impl = state.range(4);
  std::vector<uint8_t> in(static_cast<size_t>(in_h * in_w * c));
  std::mt19937 rng(42);
  for (auto& v : in) v = static_cast<uint8_t>(rng());
  std::vector<uint8_t> out(static_cast<size_t>(kOut * kOut * c));
  ResizeSampleParams p;
  p.geometry = {kOut, kOut, 0, 0, static_cast<double>(in_h), static_cast<double>(in_w)};
  p.filters = {filter, filter, true};
  ConstHwcImage src(in.data(), DType::kUInt8, in_h, in_w, c);
  HwcImage dst{out.data(), DType::kUInt8, kOut, kOut, c};
  detail::FixedPointJob job;
  job.in = in.data();
  job.in_stride = in_w * c;
  job.in_width = in_w;
  job.out = out.data();
  job.out_stride = kOut * c;
  job.channels = c;
  job.h = make_axis_resampling(in_w, 0, static_cast<double>(in_w), kOut, p.filters);
  job.v = make_axis_resampling(in_h, 0, static_cast<double>(in_h), kOut, p.filters);
  job.rows = axis_source_range(job.v);
  size_t need = 0;
  if (impl == 0) need = resize_cpu_scratch_size(src, dst, p);
  if (impl == 1) need = detail::resize_cpu_reference_scratch_size(src, dst, p);
  if (impl == 2) need = detail::fixed_point_scratch_bytes(job, detail::FixedPointIsa::kSse2) + 64;
  std::vector<std::byte> scratch(need);
  auto addr = reinterpret_cast<uintptr_t>(scratch.data());
  std::byte* aligned = scratch.data() + (64 - addr % 64) % 64;
  for (auto _ : state) {
    if (impl == 0) resize_cpu(src, dst, p, scratch);
    if (impl == 1) detail::resize_cpu_reference(src, dst, p, scratch);
    if (impl == 2) detail::resample_fixed_point(job, detail::FixedPointIsa::kSse2, aligned);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(make_label(in_h, in_w, c, filter, impl));
}

void u8_cases(benchmark::internal::Benchmark* b) {
  const int kShapes[][2] = {{150, 150}, {375, 500}, {500, 600}, {200, 300}};
  const ResampleFilter kFilters[] = {ResampleFilter::kLinear, ResampleFilter::kTriangular,
                                     ResampleFilter::kCubic, ResampleFilter::kLanczos3,
                                     ResampleFilter::kNearest};
  for (const auto& s : kShapes) {
    for (ResampleFilter f : kFilters) {
      for (int impl = 0; impl < 3; impl++) b->Args({s[0], s[1], 3, static_cast<int>(f), impl});
    }
  }
  for (int c : {1, 4}) {
    for (const auto& s : {kShapes[0], kShapes[1]}) {
      for (int impl = 0; impl < 3; impl++) {
        b->Args({s[0], s[1], c, static_cast<int>(ResampleFilter::kLinear), impl});
      }
    }
  }
}

BENCHMARK(BM_ResizeCpuU8)
    ->ArgNames({"h", "w", "c", "filter", "impl"})
    ->Apply(u8_cases)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sluice::kernels
