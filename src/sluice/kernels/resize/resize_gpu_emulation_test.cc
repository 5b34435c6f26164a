// Runs the CUDA resize kernels' per-thread bodies (detail/resize_gpu_passes.h) on the CPU, block
// by block and thread by thread, over a batch laid out by the real planner: tests the batch
// layout, the block-to-sample mapping, tiling, table layouts and epilogues without a GPU. The
// arithmetic is the same code as on the device, so outputs must equal the CPU reference exactly;
// resize_gpu_test.cu checks the real kernels on the GPU machine.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "sluice/kernels/resize/detail/resize_gpu_batch.h"
#include "sluice/kernels/resize/detail/resize_gpu_passes.h"
#include "sluice/kernels/resize/resize_test_util.h"

namespace sluice::kernels {
namespace {

using resize_test::TestSample;

constexpr uint8_t kPoison = 0xAB;
constexpr size_t kGuard = 64;  // poisoned bytes after each output, which must survive

// Runner for dispatch_gpu_passes: every thread of every block, in launch order.
struct Emulator {
  const detail::GpuPlan& plan;

  template <int C, typename W, typename Epilogue>
  void run() {
    for (int64_t b = 0; b < plan.coef_blocks; b++) {
      for (int t = 0; t < detail::kCoefBlock; t++) {
        detail::coef_thread<W>(plan.batch, static_cast<int32_t>(b), t);
      }
    }
    for (int64_t b = 0; b < plan.h_blocks; b++) {
      for (int ty = 0; ty < detail::kTileH; ty++) {
        for (int tx = 0; tx < detail::kTileW; tx++) {
          detail::h_pass_thread<C, W>(plan.batch, static_cast<int32_t>(b), tx, ty);
        }
      }
    }
    for (int64_t b = 0; b < plan.v_blocks; b++) {
      for (int ty = 0; ty < detail::kTileH; ty++) {
        for (int tx = 0; tx < detail::kTileW; tx++) {
          detail::v_pass_thread<C, W, Epilogue>(plan.batch, static_cast<int32_t>(b), tx, ty);
        }
      }
    }
  }
};

// Plans the batch into poisoned host "device" scratch, copies the header as the H2D copy
// would, and runs the emulated kernels.
template <typename Sample, typename... PlanArgs>
void emulate(std::span<const Sample> samples, int channels, detail::GpuEpilogue expected,
             PlanArgs... plan_args) {
  const detail::GpuPlan sizes = detail::plan_gpu_batch(samples, channels, plan_args..., {}, "emu");
  std::vector<std::byte> host(sizes.host_bytes + 16, std::byte{kPoison});
  std::vector<std::byte> device(sizes.device_bytes + 16, std::byte{kPoison});
  auto align = [](std::vector<std::byte>& v) {
    auto p = reinterpret_cast<uintptr_t>(v.data());
    return v.data() + (16 - p % 16) % 16;
  };
  GpuScratch scratch{align(host), sizes.host_bytes, align(device), sizes.device_bytes};
  const detail::GpuPlan plan =
      detail::plan_gpu_batch(samples, channels, plan_args..., scratch, "emu");
  ASSERT_EQ(plan.epilogue, expected);
  ASSERT_EQ(plan.device_bytes, sizes.device_bytes);
  std::memcpy(scratch.device, scratch.host, plan.host_bytes);
  Emulator emulator{plan};
  detail::dispatch_gpu_passes(channels, plan.epilogue, emulator);
}

void expect_matches(const std::vector<uint8_t>& got_with_guard, const std::vector<uint8_t>& want,
                    DType type, int64_t h, int64_t w, int64_t C, bool chw,
                    const std::string& what) {
  std::vector<uint8_t> got(got_with_guard.begin(), got_with_guard.begin() + want.size());
  resize_test::Mismatch m = resize_test::compare_output(got, want, type, h, w, C, chw);
  EXPECT_EQ(m.num_inexact, 0) << what << ": " << m.num_inexact << " of " << m.num_values
                              << " values differ, max diff " << m.max_diff << "; "
                              << m.first_too_far;
  for (size_t i = want.size(); i < got_with_guard.size(); i++) {
    ASSERT_EQ(got_with_guard[i], kPoison) << what << ": wrote past the output at byte " << i;
  }
}

TEST(ResizeGpuEmulation, ResizeEqualsCpuReference) {
  for (int channels = 1; channels <= 4; channels++) {
    for (DType out_type : {DType::kUInt8, DType::kFloat32}) {
      SCOPED_TRACE(make_string("C=", channels, " out ", dtype_name(out_type)));
      std::vector<TestSample> batch =
          resize_test::make_batch(100 + channels, channels, 14, 1000, false);
      const size_t elem = out_type == DType::kUInt8 ? 1 : 4;
      std::vector<std::vector<uint8_t>> outs(batch.size());
      std::vector<ResizeGpuSample> samples(batch.size());
      for (size_t i = 0; i < batch.size(); i++) {
        const ResizeGeometry& g = batch[i].params.geometry;
        outs[i].assign(g.out_h * g.out_w * channels * elem + kGuard, kPoison);
        samples[i] = {batch[i].in.data(), batch[i].in_h,  batch[i].in_w, 0,
                      outs[i].data(),     batch[i].params};
      }
      emulate<ResizeGpuSample>(
          samples, channels,
          out_type == DType::kUInt8 ? detail::GpuEpilogue::kU8 : detail::GpuEpilogue::kF32,
          out_type);
      for (size_t i = 0; i < batch.size(); i++) {
        const ResizeGeometry& g = batch[i].params.geometry;
        expect_matches(outs[i], resize_test::reference_resize(batch[i], channels, out_type),
                       out_type, g.out_h, g.out_w, channels, false,
                       resize_test::describe(batch[i], static_cast<int64_t>(i)));
      }
    }
  }
}

TEST(ResizeGpuEmulation, FusedEqualsCpuComposition) {
  for (int channels : {1, 3, 4}) {
    for (ResizeOutputLayout layout : {ResizeOutputLayout::kHWC, ResizeOutputLayout::kCHW}) {
      for (DType out_type : {DType::kFloat32, DType::kFloat16}) {
        const bool chw = layout == ResizeOutputLayout::kCHW;
        SCOPED_TRACE(make_string("C=", channels, chw ? " CHW " : " HWC ", dtype_name(out_type)));
        std::vector<TestSample> batch =
            resize_test::make_batch(200 + channels, channels, 12, 1000, true);
        const size_t elem = out_type == DType::kFloat32 ? 4 : 2;
        std::vector<std::vector<uint8_t>> outs(batch.size());
        std::vector<ResizeNormalizeGpuSample> samples(batch.size());
        for (size_t i = 0; i < batch.size(); i++) {
          const ResizeCrop c = resize_test::resolved_crop(batch[i]);
          outs[i].assign(c.height * c.width * channels * elem + kGuard, kPoison);
          samples[i] = {batch[i].in.data(), batch[i].in_h,   batch[i].in_w, 0,
                        outs[i].data(),     batch[i].params, batch[i].crop, batch[i].mirror,
                        batch[i].norm};
        }
        const detail::GpuEpilogue expected =
            chw ? (elem == 4 ? detail::GpuEpilogue::kNormChwF32 : detail::GpuEpilogue::kNormChwF16)
                : (elem == 4 ? detail::GpuEpilogue::kNormHwcF32 : detail::GpuEpilogue::kNormHwcF16);
        emulate<ResizeNormalizeGpuSample>(samples, channels, expected, layout, out_type);
        for (size_t i = 0; i < batch.size(); i++) {
          const ResizeCrop c = resize_test::resolved_crop(batch[i]);
          expect_matches(outs[i],
                         resize_test::reference_fused(batch[i], channels, layout, out_type),
                         out_type, c.height, c.width, channels, chw,
                         resize_test::describe(batch[i], static_cast<int64_t>(i)));
        }
      }
    }
  }
}

// Empty outputs and crops take no blocks and leave their (absent) outputs alone; the block map
// skips them.
TEST(ResizeGpuEmulation, EmptySamplesAreSkipped) {
  std::vector<TestSample> batch = resize_test::make_batch(7, 3, 5, 64, false);
  batch[1].params.geometry.out_h = 0;
  batch[3].params.geometry.out_w = 0;
  std::vector<std::vector<uint8_t>> outs(batch.size());
  std::vector<ResizeGpuSample> samples(batch.size());
  for (size_t i = 0; i < batch.size(); i++) {
    const ResizeGeometry& g = batch[i].params.geometry;
    outs[i].assign(g.out_h * g.out_w * 3 + kGuard, kPoison);
    samples[i] = {batch[i].in.data(), batch[i].in_h,  batch[i].in_w, 0,
                  outs[i].data(),     batch[i].params};
  }
  emulate<ResizeGpuSample>(samples, 3, detail::GpuEpilogue::kU8, DType::kUInt8);
  for (size_t i = 0; i < batch.size(); i++) {
    const ResizeGeometry& g = batch[i].params.geometry;
    expect_matches(outs[i], resize_test::reference_resize(batch[i], 3, DType::kUInt8),
                   DType::kUInt8, g.out_h, g.out_w, 3, false,
                   resize_test::describe(batch[i], static_cast<int64_t>(i)));
  }
}

TEST(ResizeGpuEmulation, PlannerRejectsBadBatches) {
  std::vector<TestSample> batch = resize_test::make_batch(9, 3, 3, 64, false);
  std::vector<uint8_t> out(1 << 20);
  std::vector<ResizeGpuSample> samples;
  for (auto& s : batch) {
    samples.push_back({s.in.data(), s.in_h, s.in_w, 0, out.data(), s.params});
  }
  auto expect_invalid = [&](auto&& call, const std::string& fragment) {
    try {
      call();
      ADD_FAILURE() << "expected InvalidArgument mentioning \"" << fragment << "\"";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_invalid([&] { resize_gpu_scratch_sizes(samples, 5, DType::kUInt8); }, "channels");
  expect_invalid([&] { resize_gpu_scratch_sizes(samples, 3, DType::kFloat16); }, "output type");
  auto bad = samples;
  bad[2].in = nullptr;
  expect_invalid([&] { resize_gpu_scratch_sizes(bad, 3, DType::kUInt8); }, "sample 2: null input");
  bad = samples;
  bad[1].in_row_stride = 2;
  expect_invalid([&] { resize_gpu_scratch_sizes(bad, 3, DType::kUInt8); },
                 "sample 1: in_row_stride");
  bad = samples;
  bad[0].params.geometry.src_x1 = bad[0].params.geometry.src_x0;
  expect_invalid([&] { resize_gpu_scratch_sizes(bad, 3, DType::kUInt8); }, "sample 0: x axis");
  const GpuScratchSizes need = resize_gpu_scratch_sizes(samples, 3, DType::kUInt8);
  std::vector<std::byte> host(need.host_bytes + 16), device(need.device_bytes + 16);
  GpuScratch short_device{host.data(), need.host_bytes, device.data(), need.device_bytes - 1};
  expect_invalid(
      [&] { detail::plan_gpu_batch(samples, 3, DType::kUInt8, short_device, "resize_gpu"); },
      "device scratch");
  std::vector<ResizeNormalizeGpuSample> fused(1);
  fused[0].in = batch[0].in.data();
  fused[0].in_h = batch[0].in_h;
  fused[0].in_w = batch[0].in_w;
  fused[0].out = out.data();
  fused[0].params = batch[0].params;
  fused[0].norm.stddev[1] = 0;
  expect_invalid(
      [&] {
        resize_normalize_gpu_scratch_sizes(fused, 3, ResizeOutputLayout::kCHW, DType::kFloat32);
      },
      "stddev[1]");
  fused[0].norm.stddev[1] = 1;
  fused[0].crop = {0, 0, batch[0].params.geometry.out_h + 1, -1};
  expect_invalid(
      [&] {
        resize_normalize_gpu_scratch_sizes(fused, 3, ResizeOutputLayout::kCHW, DType::kFloat32);
      },
      "not inside");
  fused[0].crop = {};
  expect_invalid(
      [&] {
        resize_normalize_gpu_scratch_sizes(fused, 3, ResizeOutputLayout::kCHW, DType::kUInt8);
      },
      "FLOAT or FLOAT16");
}

}  // namespace
}  // namespace sluice::kernels
