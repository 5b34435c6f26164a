// CPU tests of the CUDA kernels' item bodies (crop_gpu_kernels.h): every work item of a batch is
// run on the host, in scrambled order, over host buffers described by the same descriptor
// builders the GPU path uses; the outputs must equal the CPU references bit for bit and the
// guard bytes around each output must stay untouched. This checks the kernels' index
// arithmetic, run splitting and vector/element stores without a GPU; the GPU tests
// (*_gpu_test.cc) check the device itself.

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/kernels/crop/crop_cpu.h"
#include "sluice/kernels/crop/crop_gpu.h"
#include "sluice/kernels/crop/crop_gpu_kernels.h"
#include "sluice/kernels/crop/crop_mirror_normalize.h"
#include "sluice/kernels/crop/crop_mirror_normalize_gpu.h"
#include "sluice/kernels/crop/crop_test_util.h"

namespace sluice {
namespace {

constexpr uint8_t kPoison = 0xAB;
constexpr size_t kGuard = 48;

// A byte arena with a 16-byte aligned base; sample outputs are placed with guard gaps.
struct Arena {
  std::vector<uint8_t> storage;
  uint8_t* base = nullptr;
  explicit Arena(size_t bytes) : storage(bytes + 16, kPoison) {
    auto p = reinterpret_cast<uintptr_t>(storage.data());
    base = storage.data() + ((16 - p % 16) % 16);
  }
  bool guard_intact(size_t begin, size_t end) const {
    return std::all_of(base + begin, base + end, [](uint8_t b) { return b == kPoison; });
  }
};

std::vector<int64_t> scrambled(int64_t n, std::mt19937& gen) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), gen);
  return order;
}

template <typename T>
void emulate_crop(ImageLayout layout, std::mt19937& gen) {
  using S = std::conditional_t<sizeof(T) == 1, uint8_t,
                               std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>>;
  struct Spec {
    int64_t h, w, c;
    CropWindow win;
    ImageTransform t;
    std::vector<float> fill;
    std::vector<T> in;
    int64_t oh, ow;
    size_t off;
  };
  std::vector<Spec> specs;
  size_t bytes = kGuard;
  std::uniform_int_distribution<int64_t> dim(1, 40);
  for (int i = 0; i < 16; ++i) {
    Spec s{};
    s.h = i == 0 ? 1 : dim(gen);
    s.w = i == 1 ? 1 : dim(gen);
    s.c = std::array<int64_t, 5>{1, 2, 3, 4, 5}[i % 5];
    s.win = {std::uniform_int_distribution<int64_t>(-5, s.h)(gen),
             std::uniform_int_distribution<int64_t>(-5, s.w)(gen),
             std::uniform_int_distribution<int64_t>(0, s.h + 6)(gen),
             std::uniform_int_distribution<int64_t>(0, s.w + 6)(gen)};
    if (i % 3 == 0)
      s.win = apply_out_of_bounds_policy(s.win, s.h, s.w, OutOfBoundsPolicy::kTrimToShape);
    s.t = {(i & 4) != 0, (i & 1) != 0, (i & 2) != 0};
    if (i % 2) {
      for (int64_t ch = 0; ch < s.c; ++ch) s.fill.push_back(static_cast<float>(ch * 37 - 50));
    } else {
      s.fill = {-3.0f};
    }
    s.in = crop_test::random_values<T>(static_cast<size_t>(s.h * s.w * s.c), gen);
    transformed_size(s.win, s.t, &s.oh, &s.ow);
    s.off = crop_test::align_up(bytes, 16) + (i % 4 == 3 ? sizeof(T) : 0);
    bytes = s.off + static_cast<size_t>(s.oh * s.ow * s.c) * sizeof(T) + kGuard;
    specs.push_back(std::move(s));
  }
  Arena arena(bytes);
  for (size_t i = 0; i < specs.size(); ++i) {
    Spec& s = specs[i];
    auto* out = reinterpret_cast<T*>(arena.base + s.off);
    CropGpuSample d = make_crop_gpu_sample<T>(
        ImageView<const T>{s.in.data(), s.h, s.w, s.c, layout},
        ImageView<T>{out, s.oh, s.ow, s.c, layout}, s.win, s.t, s.fill, static_cast<int64_t>(i));
    for (int64_t item : scrambled(crop_detail::crop_transform_items(d, sizeof(T)), gen)) {
      crop_detail::crop_transform_item<S>(d, item);
    }
  }
  size_t prev = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const Spec& s = specs[i];
    ASSERT_TRUE(arena.guard_intact(prev, s.off)) << "guard before sample " << i;
    std::vector<T> want(static_cast<size_t>(s.oh * s.ow * s.c));
    crop_transform_cpu<T>(ImageView<const T>{s.in.data(), s.h, s.w, s.c, layout},
                          ImageView<T>{want.data(), s.oh, s.ow, s.c, layout}, s.win, s.t, s.fill);
    ASSERT_TRUE(want.empty() ||
                std::memcmp(arena.base + s.off, want.data(), want.size() * sizeof(T)) == 0)
        << "sample " << i << " " << s.h << "x" << s.w << "x" << s.c << " "
        << image_layout_name(layout) << " window " << to_string(s.win) << " transpose "
        << s.t.transpose << " flips " << s.t.flip_x << s.t.flip_y;
    prev = s.off + want.size() * sizeof(T);
  }
  ASSERT_TRUE(arena.guard_intact(prev, bytes)) << "guard after the last sample";
}

template <typename T>
class CropGpuEmulation : public ::testing::Test {};
using EmulationTypes = ::testing::Types<uint8_t, int16_t, float16, float>;
TYPED_TEST_SUITE(CropGpuEmulation, EmulationTypes);

TYPED_TEST(CropGpuEmulation, ItemsReproduceCpuReference) {
  std::mt19937 gen(21);
  for (int round = 0; round < 4; ++round) {
    emulate_crop<TypeParam>(ImageLayout::kHWC, gen);
    emulate_crop<TypeParam>(ImageLayout::kCHW, gen);
  }
}

// Runs every CMN item of `d` on the host for the runtime (C, OC, layout).
template <typename Out>
void run_cmn_items(const CmnGpuSample& d, int C, int OC, bool planar, std::mt19937& gen) {
  auto run = [&](auto c_tag, auto oc_tag, auto planar_tag) {
    constexpr int kC = decltype(c_tag)::value, kOC = decltype(oc_tag)::value;
    constexpr bool kPlanar = decltype(planar_tag)::value;
    const crop_detail::CmnSampleConstants<Out, kC, kOC> constants(d);
    for (int64_t item : scrambled(crop_detail::cmn_items(d, sizeof(Out)), gen)) {
      crop_detail::cmn_item<Out, kC, kOC, kPlanar>(d, constants, item);
    }
  };
  auto by_layout = [&](auto c_tag, auto oc_tag) {
    if (planar) {
      run(c_tag, oc_tag, std::true_type{});
    } else {
      run(c_tag, oc_tag, std::false_type{});
    }
  };
  using std::integral_constant;
  if (C == 1) return by_layout(integral_constant<int, 1>{}, integral_constant<int, 1>{});
  if (C == 2) return by_layout(integral_constant<int, 2>{}, integral_constant<int, 2>{});
  if (C == 3 && OC == 3) return by_layout(integral_constant<int, 3>{}, integral_constant<int, 3>{});
  if (C == 3 && OC == 4) return by_layout(integral_constant<int, 3>{}, integral_constant<int, 4>{});
  if (C == 4) return by_layout(integral_constant<int, 4>{}, integral_constant<int, 4>{});
  FAIL() << "unexpected channels " << C << " -> " << OC;
}

template <typename Out>
void emulate_cmn(DType type, std::mt19937& gen) {
  for (ImageLayout layout : {ImageLayout::kHWC, ImageLayout::kCHW}) {
    for (bool pad : {false, true}) {
      for (int C : {1, 2, 3, 4}) {
        CmnParams p;
        p.out_type = type;
        p.out_layout = layout;
        p.pad_output = pad;
        p.mean = {100.0f};
        p.stddev = {40.0f};
        p.scale = type == DType::kUInt8 || type == DType::kInt8 ? 60.0f : 1.0f;
        p.shift = type == DType::kUInt8 ? 128.0f : 0.0f;
        p.fill_values = {7.0f};
        if (C == 3) p.fill_values = {7.0f, -2.0f, 300.0f, 9.5f};  // one per output channel
        if (C == 3 && !pad) p.fill_values.pop_back();
        const CmnChannelTable table = make_cmn_channel_table(p, C);
        struct Spec {
          int64_t h, w;
          CropWindow win;
          bool mirror;
          std::vector<uint8_t> in;
          size_t off;
        };
        std::vector<Spec> specs;
        size_t bytes = kGuard;
        std::uniform_int_distribution<int64_t> dim(1, 45);
        for (int i = 0; i < 10; ++i) {
          Spec s{};
          s.h = dim(gen);
          s.w = i == 0 ? 1 : dim(gen);
          s.win = {std::uniform_int_distribution<int64_t>(-4, s.h)(gen),
                   std::uniform_int_distribution<int64_t>(-20, s.w)(gen),
                   std::uniform_int_distribution<int64_t>(0, s.h + 5)(gen),
                   std::uniform_int_distribution<int64_t>(0, s.w + 40)(gen)};
          if (i == 1) s.win = {0, 0, 3, 32};  // full runs: vector stores on aligned rows
          s.mirror = i % 2 == 1;
          s.in = crop_test::random_values<uint8_t>(static_cast<size_t>(s.h * s.w * C), gen);
          s.off = crop_test::align_up(bytes, 16) + (i % 3 == 2 ? sizeof(Out) : 0);
          bytes = s.off + volume(cmn_output_shape(s.win, table)) * sizeof(Out) + kGuard;
          specs.push_back(std::move(s));
        }
        Arena arena(bytes);
        for (size_t i = 0; i < specs.size(); ++i) {
          const Spec& s = specs[i];
          CmnGpuSample d = make_cmn_gpu_sample(
              ImageView<const uint8_t>{s.in.data(), s.h, s.w, C, ImageLayout::kHWC},
              arena.base + s.off, s.win, s.mirror, table, static_cast<int64_t>(i));
          run_cmn_items<Out>(d, C, table.out_channels, layout == ImageLayout::kCHW, gen);
        }
        size_t prev = 0;
        for (size_t i = 0; i < specs.size(); ++i) {
          const Spec& s = specs[i];
          ASSERT_TRUE(arena.guard_intact(prev, s.off)) << "guard before sample " << i;
          std::vector<Out> want(static_cast<size_t>(volume(cmn_output_shape(s.win, table))));
          crop_mirror_normalize_cpu<uint8_t>(
              ImageView<const uint8_t>{s.in.data(), s.h, s.w, C, ImageLayout::kHWC}, want.data(),
              s.win, s.mirror, table);
          ASSERT_TRUE(want.empty() ||
                      std::memcmp(arena.base + s.off, want.data(), want.size() * sizeof(Out)) == 0)
              << dtype_name(type) << " " << image_layout_name(layout) << " pad " << pad
              << " C=" << C << " sample " << i << " " << s.h << "x" << s.w << " window "
              << to_string(s.win) << " mirror " << s.mirror;
          prev = s.off + want.size() * sizeof(Out);
        }
        ASSERT_TRUE(arena.guard_intact(prev, bytes)) << "guard after the last sample";
      }
    }
  }
}

TEST(CropMirrorNormalizeGpuEmulation, ItemsReproduceCpuReference) {
  std::mt19937 gen(22);
  emulate_cmn<float>(DType::kFloat32, gen);
  emulate_cmn<float16>(DType::kFloat16, gen);
  emulate_cmn<uint8_t>(DType::kUInt8, gen);
  emulate_cmn<int8_t>(DType::kInt8, gen);
}

}  // namespace
}  // namespace sluice
