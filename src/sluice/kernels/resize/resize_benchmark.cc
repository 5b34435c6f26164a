// CPU reference resize: a 500x375 RGB uint8 image (ImageNet's typical size) to 224x224, per
// filter, with the scratch reused across iterations as an operator would. Reports images/s and
// input bytes/s.

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

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

}  // namespace
}  // namespace sluice::kernels
