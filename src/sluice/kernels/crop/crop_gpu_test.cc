// GPU tests (label gpu): the batched CUDA crop / flip / orientation kernel against
// crop_transform_cpu on fresh random non-zero data, mixed sample sizes, poisoned outputs and
// guard gaps. Tolerance: none - the kernel only moves elements, results must be bit-identical.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/crop/crop_cpu.h"
#include "sluice/kernels/crop/crop_gpu.h"
#include "sluice/kernels/crop/crop_gpu_test_util.h"
#include "sluice/kernels/crop/crop_test_util.h"

namespace sluice {
namespace {

using namespace crop_test;  // NOLINT(google-build-using-namespace): this folder's test helpers

struct Spec {
  int64_t h, w, c;
  CropWindow win;
  ImageTransform t;
  std::vector<float> fill;
  int64_t oh, ow;
  size_t in_off = 0, out_off = 0;  // bytes into the batch buffers
};

std::string describe(const Spec& s, ImageLayout layout) {
  return make_string("input ", s.h, "x", s.w, "x", s.c, " ", image_layout_name(layout), " window ",
                     to_string(s.win), " transpose ", s.t.transpose, " flip_x ", s.t.flip_x,
                     " flip_y ", s.t.flip_y, " fill values ", s.fill.size(), " output ", s.oh, "x",
                     s.ow, " at byte offset ", s.out_off);
}

Spec random_spec(int i, std::mt19937& gen) {
  static const int64_t kSizes[][2] = {{1, 1}, {1, 37}, {29, 1}, {300, 517}, {224, 224}, {5, 3}};
  std::uniform_int_distribution<int64_t> dim(1, 160);
  Spec s{};
  if (i < 6) {
    s.h = kSizes[i][0], s.w = kSizes[i][1];
  } else {
    s.h = dim(gen), s.w = dim(gen);
  }
  const int64_t channel_choices[] = {1, 3, 3, 4, 2, 5};
  s.c = channel_choices[std::uniform_int_distribution<int>(0, 5)(gen)];
  // Window: inside, reaching outside (pad), trimmed, or the whole image.
  std::uniform_int_distribution<int64_t> ext_h(1, s.h + 8), ext_w(1, s.w + 8);
  CropWindow w{0, 0, ext_h(gen), ext_w(gen)};
  w.y = std::uniform_int_distribution<int64_t>(-6, s.h)(gen);
  w.x = std::uniform_int_distribution<int64_t>(-6, s.w)(gen);
  switch (i % 4) {
    case 0:
      s.win = {0, 0, s.h, s.w};
      break;
    case 1:
      s.win = apply_out_of_bounds_policy(w, s.h, s.w, OutOfBoundsPolicy::kTrimToShape);
      break;
    default:
      s.win = w;
      break;  // padded
  }
  const int bits = std::uniform_int_distribution<int>(0, 7)(gen);
  s.t = {(bits & 4) != 0, (bits & 1) != 0, (bits & 2) != 0};
  std::uniform_real_distribution<float> fv(-400.0f, 70000.0f);
  switch (i % 3) {
    case 0:
      break;
    case 1:
      s.fill = {fv(gen)};
      break;
    default:
      for (int64_t ch = 0; ch < s.c; ++ch) s.fill.push_back(fv(gen));
      break;
  }
  transformed_size(s.win, s.t, &s.oh, &s.ow);
  return s;
}

template <typename T>
void check_batch(ImageLayout layout, int num_samples, uint32_t seed) {
  SCOPED_TRACE(make_string("seed ", seed, " (SLUICE_TEST_SEED), element size ", sizeof(T), ", ",
                           image_layout_name(layout)));
  std::mt19937 gen(seed);
  std::vector<Spec> specs;
  std::vector<std::vector<T>> inputs;
  size_t in_bytes = 0, out_bytes = kGuardBytes;
  for (int i = 0; i < num_samples; ++i) {
    Spec s = random_spec(i, gen);
    inputs.push_back(crop_test::random_values<T>(static_cast<size_t>(s.h * s.w * s.c), gen));
    s.in_off = in_bytes;
    in_bytes = align_up(in_bytes + inputs.back().size() * sizeof(T), 16);
    // Odd samples start 16-byte misaligned, to exercise the element-wise store path.
    s.out_off = align_up(out_bytes, 16) + (i % 2 ? sizeof(T) : 0);
    out_bytes = s.out_off + static_cast<size_t>(s.oh * s.ow * s.c) * sizeof(T) + kGuardBytes;
    specs.push_back(s);
  }
  cuda::Stream stream(0);
  DeviceBuffer d_in(in_bytes), d_out(out_bytes);
  DeviceBuffer d_desc(crop_gpu_descriptor_bytes(num_samples));
  PinnedBuffer staging(crop_gpu_descriptor_bytes(num_samples));
  upload_batch(inputs, specs, d_in, d_out, stream);
  std::vector<CropGpuSample> samples;
  for (int i = 0; i < num_samples; ++i) {
    const Spec& s = specs[i];
    ImageView<const T> in{reinterpret_cast<const T*>(d_in.bytes() + s.in_off), s.h, s.w, s.c,
                          layout};
    ImageView<T> out{reinterpret_cast<T*>(d_out.bytes() + s.out_off), s.oh, s.ow, s.c, layout};
    samples.push_back(make_crop_gpu_sample<T>(in, out, s.win, s.t, s.fill, i));
  }
  crop_transform_gpu(samples, sizeof(T), staging.get(), d_desc.get(), stream.get());
  const std::vector<uint8_t> host_out = download(d_out, stream);

  size_t prev_end = 0;
  for (int i = 0; i < num_samples; ++i) {
    const Spec& s = specs[i];
    EXPECT_TRUE(
        crop_test::guard_intact(host_out, prev_end, s.out_off, make_string("before sample ", i)));
    std::vector<T> want(static_cast<size_t>(s.oh * s.ow * s.c));
    crop_transform_cpu<T>(ImageView<const T>{inputs[i].data(), s.h, s.w, s.c, layout},
                          ImageView<T>{want.data(), s.oh, s.ow, s.c, layout}, s.win, s.t, s.fill);
    const uint8_t* got = host_out.data() + s.out_off;
    int64_t mismatches = 0;
    std::string first;
    for (size_t e = 0; e < want.size(); ++e) {
      T g;
      std::memcpy(&g, got + e * sizeof(T), sizeof(T));
      if (!crop_test::same_bits(g, want[e])) {
        if (++mismatches <= 5) {
          const int64_t plane = s.oh * s.ow, ee = static_cast<int64_t>(e);
          int64_t y, x, ch;
          if (layout == ImageLayout::kHWC) {
            ch = ee % s.c, x = ee / s.c % s.ow, y = ee / s.c / s.ow;
          } else {
            ch = ee / plane, y = ee % plane / s.ow, x = ee % s.ow;
          }
          first += make_string("\n  y=", y, " x=", x, " c=", ch, " got ", crop_test::as_double(g),
                               " want ", crop_test::as_double(want[e]));
        }
      }
    }
    EXPECT_EQ(mismatches, 0) << "sample " << i << ": " << describe(s, layout) << first;
    prev_end = s.out_off + want.size() * sizeof(T);
  }
  EXPECT_TRUE(crop_test::guard_intact(host_out, prev_end, out_bytes, "after the last sample"));
}

template <typename T>
class CropGpu : public gpu_test::GpuTest {};
using CropGpuTypes = ::testing::Types<uint8_t, int8_t, uint16_t, int16_t, float16, float>;
TYPED_TEST_SUITE(CropGpu, CropGpuTypes);

TYPED_TEST(CropGpu, MixedBatchMatchesCpuReference) {
  const uint32_t seed = crop_test::test_seed();
  for (ImageLayout layout : {ImageLayout::kHWC, ImageLayout::kCHW}) {
    check_batch<TypeParam>(layout, 24, seed);
    check_batch<TypeParam>(layout, 3, seed + 1);
  }
}

TEST(CropGpuFlipOrientation, WholeImageTransformsMatchCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const uint32_t seed = crop_test::test_seed();
  SCOPED_TRACE(make_string("seed ", seed));
  std::mt19937 gen(seed);
  // 8 orientations + 4 flips of one odd-sized HWC uint8 image, in one launch.
  const int64_t h = 37, w = 53, c = 3;
  const std::vector<uint8_t> img = crop_test::random_values<uint8_t>(h * w * c, gen);
  const int n = 12;
  const size_t sample_bytes = static_cast<size_t>(h * w * c);
  DeviceBuffer d_in(sample_bytes), d_out(n * sample_bytes), d_desc(crop_gpu_descriptor_bytes(n));
  PinnedBuffer staging(crop_gpu_descriptor_bytes(n));
  cuda::Stream stream(0);
  cuda::memcpy_async(d_in.get(), img.data(), sample_bytes, stream.get());
  cuda::memset_async(d_out.get(), kPoison, n * sample_bytes, stream.get());
  ImageView<const uint8_t> in{d_in.bytes(), h, w, c, ImageLayout::kHWC};
  std::vector<CropGpuSample> samples;
  for (int i = 0; i < n; ++i) {
    const bool swap = i < 8 && i + 1 >= 5;
    ImageView<uint8_t> out{d_out.bytes() + i * sample_bytes, swap ? w : h, swap ? h : w, c,
                           ImageLayout::kHWC};
    samples.push_back(i < 8 ? make_exif_orientation_gpu_sample<uint8_t>(in, out, i + 1, i)
                            : make_flip_gpu_sample<uint8_t>(in, out, (i - 8) & 1, (i - 8) & 2, i));
  }
  crop_transform_gpu(samples, 1, staging.get(), d_desc.get(), stream.get());
  std::vector<uint8_t> got(n * sample_bytes);
  cuda::memcpy_async(got.data(), d_out.get(), got.size(), stream.get());
  stream.synchronize();
  for (int i = 0; i < n; ++i) {
    const bool swap = i < 8 && i + 1 >= 5;
    std::vector<uint8_t> want(sample_bytes);
    ImageView<const uint8_t> hin{img.data(), h, w, c, ImageLayout::kHWC};
    ImageView<uint8_t> hout{want.data(), swap ? w : h, swap ? h : w, c, ImageLayout::kHWC};
    if (i < 8) {
      exif_orientation_cpu<uint8_t>(hin, hout, i + 1);
    } else {
      flip_cpu<uint8_t>(hin, hout, (i - 8) & 1, (i - 8) & 2);
    }
    EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin() + i * sample_bytes))
        << (i < 8 ? make_string("orientation ", i + 1) : make_string("flip ", i - 8));
  }
}

TEST(CropGpuArgs, RejectsBadLaunchArguments) {
  // No device needed: these checks run before any CUDA call.
  std::vector<CropGpuSample> samples(1);
  int dummy;
  EXPECT_THROW(crop_transform_gpu(samples, 3, &dummy, &dummy, nullptr), InvalidArgument);
  EXPECT_THROW(crop_transform_gpu(samples, 1, nullptr, &dummy, nullptr), InvalidArgument);
  std::vector<CropGpuSample> too_many(kCropGpuMaxSamples + 1);
  EXPECT_THROW(crop_transform_gpu(too_many, 1, &dummy, &dummy, nullptr), InvalidArgument);
}

}  // namespace
}  // namespace sluice
