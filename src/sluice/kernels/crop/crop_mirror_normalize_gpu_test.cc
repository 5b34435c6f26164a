// GPU tests (label gpu): the batched CUDA crop_mirror_normalize kernel against
// crop_mirror_normalize_cpu on fresh random non-zero uint8 data, mixed sample sizes, per-sample
// windows (inside, padded, trimmed, RandomResizedCrop) and mirror, poisoned outputs and guard
// gaps. Tolerance: none for every output type - both sides evaluate the same IEEE operations
// (crop_math.h, Note [Normalization order]); a mismatch report includes the ULP distance.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/crop/crop_gpu_test_util.h"
#include "sluice/kernels/crop/crop_mirror_normalize.h"
#include "sluice/kernels/crop/crop_mirror_normalize_gpu.h"
#include "sluice/kernels/crop/crop_test_util.h"
#include "sluice/kernels/crop/random_crop_window.h"

namespace sluice {
namespace {

using namespace crop_test;  // NOLINT(google-build-using-namespace): this folder's test helpers

struct Spec {
  int64_t h, w;
  CropWindow win;
  bool mirror;
  size_t in_off = 0, out_off = 0;
};

// Window kinds: DALI's fixed crop (fits, or larger than the image -> pad), trimmed, and
// RandomResizedCrop windows.
Spec random_spec(int i, int64_t max_dim, std::mt19937& gen) {
  std::uniform_int_distribution<int64_t> dim(1, max_dim);
  Spec s{};
  s.h = i == 0 ? 1 : dim(gen);
  s.w = i == 1 ? 1 : dim(gen);
  std::uniform_real_distribution<float> pos(0.0f, 1.0f);
  const int64_t ch = std::uniform_int_distribution<int64_t>(1, max_dim + 20)(gen);
  const int64_t cw = std::uniform_int_distribution<int64_t>(1, max_dim + 20)(gen);
  const CropWindow fixed = fixed_crop_window(s.h, s.w, ch, cw, pos(gen), pos(gen));
  switch (i % 4) {
    case 0:
      s.win = apply_out_of_bounds_policy(fixed, s.h, s.w, OutOfBoundsPolicy::kPad);
      break;
    case 1:
      s.win = apply_out_of_bounds_policy(fixed, s.h, s.w, OutOfBoundsPolicy::kTrimToShape);
      break;
    case 2: {
      SampleRng rng(1, 0, i);
      s.win = random_resized_crop_window(s.h, s.w, RandomResizedCropParams{}, rng);
      break;
    }
    default:
      s.win = {-3, -5, s.h + 7, s.w + 9};
      break;  // padded on every side
  }
  s.mirror = std::bernoulli_distribution(0.5)(gen);
  return s;
}

template <typename Out>
std::string value_string(Out v) {
  return make_string(crop_test::as_double(v));
}

// ULP distance of two float / float16 bit patterns of the same sign (diagnostics only).
template <typename Out>
int64_t ulp_distance(Out a, Out b) {
  if constexpr (std::is_same_v<Out, float>) {
    int32_t x, y;
    std::memcpy(&x, &a, 4);
    std::memcpy(&y, &b, 4);
    return std::llabs(int64_t{x} - y);
  } else if constexpr (std::is_same_v<Out, float16>) {
    return std::llabs(int64_t{a.bits} - b.bits);
  } else {
    return std::llabs(int64_t{a} - b);
  }
}

template <typename Out>
void check_batch(const CmnParams& params, int channels, int num_samples, int64_t max_dim,
                 uint32_t seed) {
  SCOPED_TRACE(make_string("seed ", seed, " (SLUICE_TEST_SEED), ", dtype_name(params.out_type), " ",
                           image_layout_name(params.out_layout), " pad_output ", params.pad_output,
                           " C=", channels, " scale ", params.scale, " shift ", params.shift));
  std::mt19937 gen(seed);
  const CmnChannelTable table = make_cmn_channel_table(params, channels);
  std::vector<Spec> specs;
  std::vector<std::vector<uint8_t>> inputs;
  size_t in_bytes = 0, out_bytes = kGuardBytes;
  for (int i = 0; i < num_samples; ++i) {
    Spec s = random_spec(i, max_dim, gen);
    inputs.push_back(
        crop_test::random_values<uint8_t>(static_cast<size_t>(s.h * s.w * channels), gen));
    s.in_off = in_bytes;
    in_bytes += inputs.back().size() + 3;  // unaligned input starts on purpose
    s.out_off = align_up(out_bytes, 16) + (i % 3 == 2 ? sizeof(Out) : 0);
    out_bytes = s.out_off + volume(cmn_output_shape(s.win, table)) * sizeof(Out) + kGuardBytes;
    specs.push_back(s);
  }
  cuda::Stream stream(0);
  DeviceBuffer d_in(in_bytes), d_out(out_bytes), d_desc(cmn_gpu_descriptor_bytes(num_samples));
  PinnedBuffer staging(cmn_gpu_descriptor_bytes(num_samples));
  upload_batch(inputs, specs, d_in, d_out, stream);
  std::vector<CmnGpuSample> samples;
  for (int i = 0; i < num_samples; ++i) {
    const Spec& s = specs[i];
    ImageView<const uint8_t> in{d_in.bytes() + s.in_off, s.h, s.w, channels, ImageLayout::kHWC};
    samples.push_back(
        make_cmn_gpu_sample(in, d_out.bytes() + s.out_off, s.win, s.mirror, table, i));
  }
  crop_mirror_normalize_gpu(samples, table, staging.get(), d_desc.get(), stream.get());
  const std::vector<uint8_t> host_out = download(d_out, stream);

  size_t prev_end = 0;
  for (int i = 0; i < num_samples; ++i) {
    const Spec& s = specs[i];
    EXPECT_TRUE(
        crop_test::guard_intact(host_out, prev_end, s.out_off, make_string("before sample ", i)));
    const Shape shape = cmn_output_shape(s.win, table);
    std::vector<Out> want(static_cast<size_t>(volume(shape)));
    crop_mirror_normalize_cpu<uint8_t>(
        ImageView<const uint8_t>{inputs[i].data(), s.h, s.w, channels, ImageLayout::kHWC},
        want.data(), s.win, s.mirror, table);
    int64_t mismatches = 0, max_ulp = 0;
    std::string first;
    for (size_t e = 0; e < want.size(); ++e) {
      Out g;
      std::memcpy(&g, host_out.data() + s.out_off + e * sizeof(Out), sizeof(Out));
      if (!crop_test::same_bits(g, want[e])) {
        max_ulp = std::max(max_ulp, ulp_distance(g, want[e]));
        if (++mismatches <= 5) {
          first += make_string("\n  element ", e, " of shape ", shape_to_string(shape), ": got ",
                               value_string(g), " want ", value_string(want[e]));
        }
      }
    }
    EXPECT_EQ(mismatches, 0) << "sample " << i << ": input " << s.h << "x" << s.w << "x" << channels
                             << " window " << to_string(s.win) << " mirror " << s.mirror
                             << " output offset " << s.out_off << ", max distance " << max_ulp
                             << " ulp" << first;
    prev_end = s.out_off + want.size() * sizeof(Out);
  }
  EXPECT_TRUE(crop_test::guard_intact(host_out, prev_end, out_bytes, "after the last sample"));
}

class CropMirrorNormalizeGpu : public gpu_test::GpuTest {};

template <typename Out>
void sweep(DType type, float scale, float shift, uint32_t seed) {
  for (ImageLayout layout : {ImageLayout::kCHW, ImageLayout::kHWC}) {
    for (bool pad : {false, true}) {
      for (int C : {3, 1, 2, 4}) {
        CmnParams p;
        p.out_type = type;
        p.out_layout = layout;
        p.pad_output = pad;
        p.scale = scale;
        p.shift = shift;
        if (C == 3) {
          p.mean = {0.485f * 255, 0.456f * 255, 0.406f * 255};
          p.stddev = {0.229f * 255, 0.224f * 255, 0.225f * 255};
          p.fill_values = {0x76, 0xB9, 0x00};
          if (pad) p.fill_values.push_back(0x42);  // one per output channel
        } else {
          p.mean = {127.5f};
          p.stddev = {0.225f * 255};
          p.fill_values = {-3.5f};
        }
        check_batch<Out>(p, C, 17, 90, seed++);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

TEST_F(CropMirrorNormalizeGpu, FloatMatchesCpuExactly) {
  sweep<float>(DType::kFloat32, 1.0f, 0.0f, crop_test::test_seed());
}

TEST_F(CropMirrorNormalizeGpu, Float16MatchesCpuExactly) {
  sweep<float16>(DType::kFloat16, 1.0f, 0.0f, crop_test::test_seed());
  // Large values overflow to infinity; tiny ones are float16 subnormals.
  sweep<float16>(DType::kFloat16, 30000.0f, 0.0f, crop_test::test_seed());
  sweep<float16>(DType::kFloat16, 1e-5f, 0.0f, crop_test::test_seed());
}

TEST_F(CropMirrorNormalizeGpu, Uint8AndInt8MatchCpuExactlyWithClamping) {
  // DALI test settings (scale 64 shift 128 for UINT8, 50 / 5 for INT8) and stronger ones that
  // saturate both ends.
  sweep<uint8_t>(DType::kUInt8, 64.0f, 128.0f, crop_test::test_seed());
  sweep<uint8_t>(DType::kUInt8, 300.0f, 100.0f, crop_test::test_seed());
  sweep<int8_t>(DType::kInt8, 50.0f, 5.0f, crop_test::test_seed());
  sweep<int8_t>(DType::kInt8, 200.0f, -20.0f, crop_test::test_seed());
}

TEST_F(CropMirrorNormalizeGpu, ImageNetBatchMatchesCpuAndReportsTime) {
  // 128 samples of sizes up to 500 x 500 with mixed windows, FLOAT16 CHW: the output type and
  // layout of the ResNet-50 example; then the time of 128 224 x 224 centre crops.
  const uint32_t seed = crop_test::test_seed();
  CmnParams p;
  p.out_type = DType::kFloat16;
  p.out_layout = ImageLayout::kCHW;
  p.mean = {0.485f * 255, 0.456f * 255, 0.406f * 255};
  p.stddev = {0.229f * 255, 0.224f * 255, 0.225f * 255};
  check_batch<float16>(p, 3, 128, 500, seed);

  // Timing (informational): the whole batch, one launch.
  const int n = 128;
  const CmnChannelTable table = make_cmn_channel_table(p, 3);
  const int64_t H = 375, W = 500;
  DeviceBuffer d_in(n * H * W * 3), d_out(n * 3 * 224 * 224 * 2),
      d_desc(cmn_gpu_descriptor_bytes(n));
  PinnedBuffer staging(cmn_gpu_descriptor_bytes(n));
  cuda::Stream stream(0);
  cuda::memset_async(d_in.get(), 7, d_in.size(), stream.get());
  std::vector<CmnGpuSample> samples;
  for (int i = 0; i < n; ++i) {
    ImageView<const uint8_t> in{d_in.bytes() + i * H * W * 3, H, W, 3, ImageLayout::kHWC};
    samples.push_back(make_cmn_gpu_sample(in, d_out.bytes() + i * 3 * 224 * 224 * 2,
                                          fixed_crop_window(H, W, 224, 224, 0.5f, 0.5f), i % 2 == 0,
                                          table, i));
  }
  // Descriptors built straight in the pinned staging buffer: the launch then skips the host
  // copy, and re-launching the same batch never rewrites the buffer while a copy reads it.
  auto* staged = static_cast<CmnGpuSample*>(staging.get());
  std::copy(samples.begin(), samples.end(), staged);
  const std::span<const CmnGpuSample> batch(staged, samples.size());
  crop_mirror_normalize_gpu(batch, table, staging.get(), d_desc.get(), stream.get());
  stream.synchronize();
  const int iters = 50;
  auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < iters; ++it) {
    crop_mirror_normalize_gpu(batch, table, staging.get(), d_desc.get(), stream.get());
  }
  stream.synchronize();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
      iters;
  const double bytes = n * 224.0 * 224 * 3 * (1 + 2);  // uint8 read + float16 written
  std::printf(
      "[ timing ] crop_mirror_normalize 128 x 224x224x3 uint8 -> FLOAT16 CHW: %.3f ms "
      "per batch (%.1f GB/s of useful traffic, includes descriptor upload)\n",
      ms, bytes / ms / 1e6);
}

TEST(CropMirrorNormalizeGpuArgs, RejectsBadArguments) {
  // No device needed: these checks run before any CUDA call.
  CmnParams p;
  const CmnChannelTable t3 = make_cmn_channel_table(p, 3);
  const CmnChannelTable t5 = make_cmn_channel_table(p, 5);
  uint8_t img[4 * 4 * 5] = {};
  float out[64];
  ImageView<const uint8_t> hwc3{img, 4, 4, 3, ImageLayout::kHWC};
  EXPECT_NO_THROW(make_cmn_gpu_sample(hwc3, out, {0, 0, 2, 2}, false, t3));
  EXPECT_THROW(make_cmn_gpu_sample(ImageView<const uint8_t>{img, 4, 4, 5, ImageLayout::kHWC}, out,
                                   {0, 0, 2, 2}, false, t5),
               InvalidArgument);  // too many channels for the GPU kernel
  EXPECT_THROW(make_cmn_gpu_sample(ImageView<const uint8_t>{img, 4, 4, 3, ImageLayout::kCHW}, out,
                                   {0, 0, 2, 2}, false, t3),
               InvalidArgument);
  EXPECT_THROW(make_cmn_gpu_sample(hwc3, out, {0, 0, 2, 2}, false, make_cmn_channel_table(p, 1)),
               InvalidArgument);
  EXPECT_THROW(make_cmn_gpu_sample(hwc3, out, {0, 0, int64_t{1} << 32, 2}, false, t3),
               InvalidArgument);
  std::vector<CmnGpuSample> samples(1);
  int dummy;
  EXPECT_THROW(crop_mirror_normalize_gpu(samples, t5, &dummy, &dummy, nullptr), InvalidArgument);
  EXPECT_THROW(crop_mirror_normalize_gpu(samples, t3, nullptr, &dummy, nullptr), InvalidArgument);
}

}  // namespace
}  // namespace sluice
