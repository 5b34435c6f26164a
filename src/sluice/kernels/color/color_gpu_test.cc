// GPU tests (label gpu): color_gpu against color_cpu on fresh random data, every operation,
// every pair of element types of the affine operations, samples of mixed sizes (empty ones
// included) in one launch, outputs poisoned beforehand. Bit-exact: both sides share the per-pixel
// arithmetic (color_pixel.h).

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/color/color_cpu.h"
#include "sluice/kernels/color/color_gpu.h"
#include "sluice/kernels/color/color_matrix.h"
#include "sluice/kernels/common/gpu_test_util.h"

namespace sluice::kernels::color {
namespace {

constexpr uint8_t kPoison = 0xA7;

void check(ColorOp op, DType in_type, DType out_type, std::mt19937& gen) {
  const int n = 9;
  const int ic = in_channels(op);
  const int oc = out_channels(op);
  const size_t in_size = dtype_size(in_type), out_size = dtype_size(out_type);
  std::vector<ColorSample> samples(n);
  std::vector<int64_t> in_off(n), out_off(n);
  int64_t in_total = 0, out_total = 0, max_pixels = 0;
  std::uniform_real_distribution<float> u(0.0f, 2.0f);
  for (int i = 0; i < n; ++i) {
    ColorSample& s = samples[i];
    s.pixels = i == 3 ? 0 : std::uniform_int_distribution<int64_t>(1, 5000)(gen);
    if (op == ColorOp::kMultiplyAdd) {
      set_brightness_contrast(s, u(gen), u(gen) - 1.0f, u(gen), 128.0f * u(gen), 255.0f);
    } else if (op == ColorOp::kMatrix3) {
      set_color_twist(s, 180.0f * (u(gen) - 1.0f), u(gen), u(gen), u(gen), 128.0f);
    }
    in_off[i] = in_total;
    // Odd samples' UINT8 outputs start off a 4-byte boundary (the vectorised path's fallback).
    out_off[i] = out_total + (out_size == 1 ? i % 2 : 0);
    in_total += (s.pixels * ic * in_size + 15) / 16 * 16;
    out_total += (s.pixels * oc * out_size + 15) / 16 * 16 + 16;
    max_pixels = std::max(max_pixels, s.pixels);
  }
  std::vector<uint8_t> in(in_total);
  if (in_type == DType::kFloat32 || in_type == DType::kFloat16) {
    std::uniform_real_distribution<float> f(-0.5f, 300.0f);
    for (size_t k = 0; k * in_size < in.size(); ++k) {
      const float v = f(gen);
      if (in_type == DType::kFloat32) {
        std::memcpy(in.data() + k * 4, &v, 4);
      } else {
        const uint16_t h = float_to_half_bits(v);
        std::memcpy(in.data() + k * 2, &h, 2);
      }
    }
  } else {
    for (auto& b : in) b = static_cast<uint8_t>(gen() | 1);
  }
  std::vector<uint8_t> want(out_total, kPoison);
  for (int i = 0; i < n; ++i) {
    ColorSample s = samples[i];
    s.in = in.data() + in_off[i];
    s.out = want.data() + out_off[i];
    color_cpu(s, op, in_type, out_type);
  }
  gpu_test::DeviceBuffer d_in(in.size()), d_out(want.size()), d_desc(sizeof(ColorSample) * n);
  cuda::memcpy_async(d_in.get(), in.data(), in.size(), nullptr);
  cuda::memset_async(d_out.get(), kPoison, want.size(), nullptr);
  std::vector<ColorSample> dev = samples;
  for (int i = 0; i < n; ++i) {
    dev[i].in = d_in.bytes() + in_off[i];
    dev[i].out = d_out.bytes() + out_off[i];
  }
  cuda::memcpy_async(d_desc.get(), dev.data(), sizeof(ColorSample) * n, nullptr);
  color_gpu(static_cast<const ColorSample*>(d_desc.get()), n, max_pixels, op, in_type, out_type,
            nullptr);
  const auto got = gpu_test::download(d_out.get(), want.size());
  ASSERT_TRUE(gpu_test::same_elements(got, want))
      << "op " << static_cast<int>(op) << ", " << dtype_name(in_type) << " -> "
      << dtype_name(out_type);
}

class ColorGpu : public gpu_test::GpuTest {};

constexpr DType kTypes[] = {DType::kUInt8, DType::kInt16, DType::kInt32, DType::kFloat16,
                            DType::kFloat32};

TEST_F(ColorGpu, AffineOperationsMatchCpuForEveryTypePair) {
  const uint32_t seed = gpu_test::printed_test_seed();
  std::mt19937 gen(seed);
  for (ColorOp op : {ColorOp::kMultiplyAdd, ColorOp::kMatrix3}) {
    for (DType in : kTypes) {
      for (DType out : kTypes) check(op, in, out, gen);
    }
  }
}

TEST_F(ColorGpu, ConversionsMatchCpu) {
  const uint32_t seed = gpu_test::printed_test_seed();
  std::mt19937 gen(seed);
  for (ColorOp op :
       {ColorOp::kSwapRB, ColorOp::kRgbToGray, ColorOp::kBgrToGray, ColorOp::kGrayToRgb,
        ColorOp::kRgbToYCbCr, ColorOp::kBgrToYCbCr, ColorOp::kYCbCrToRgb, ColorOp::kYCbCrToBgr,
        ColorOp::kGrayToYCbCr, ColorOp::kYCbCrToGray}) {
    check(op, DType::kUInt8, DType::kUInt8, gen);
  }
}

}  // namespace
}  // namespace sluice::kernels::color
