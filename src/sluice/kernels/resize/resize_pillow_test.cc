// The CPU reference against Pillow (Image.resize): embedded results for a patch of a real photo,
// and, when SLUICE_RESIZE_PILLOW_DIR names a folder made by
// `pillow_reference.py photos PHOTO_DIR OUT_DIR`, every photo of the shared data set.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sluice/kernels/resize/resize_cpu.h"
#include "sluice/kernels/resize/resize_pillow_data.h"

namespace sluice::kernels {
namespace {

struct PillowCase {
  const char* label;
  int out_w, out_h;
  double box[4];  // Pillow's (x0, y0, x1, y1)
};

// Must match EMBED_CASES of pillow_reference.py.
constexpr PillowCase kDown{"downscale 16x12 -> 7x5", 7, 5, {0, 0, 16, 12}};
constexpr PillowCase kUp{"upscale 16x12 -> 21x16", 21, 16, {0, 0, 16, 12}};
constexpr PillowCase kBox{"box (2.5, 1.75, 14, 10.5) -> 6x5", 6, 5, {2.5, 1.75, 14.0, 10.5}};

std::vector<uint8_t> resize_u8(const uint8_t* in, int h, int w, int c, const PillowCase& pc,
                               ResampleFilter filter) {
  ResizeSampleParams p;
  p.geometry = {pc.out_h, pc.out_w, pc.box[1], pc.box[0], pc.box[3], pc.box[2]};
  p.filters = {filter, filter, true};
  std::vector<uint8_t> out(static_cast<size_t>(pc.out_h) * pc.out_w * c);
  ConstHwcImage src(in, DType::kUInt8, h, w, c);
  HwcImage dst{out.data(), DType::kUInt8, pc.out_h, pc.out_w, c};
  std::vector<std::byte> scratch(resize_cpu_scratch_size(src, dst, p));
  resize_cpu(src, dst, p, scratch);
  return out;
}

// Max |a - b| and the number of elements that differ.
std::pair<int, int> compare(const uint8_t* a, const uint8_t* b, size_t n) {
  int max_diff = 0, num_diff = 0;
  for (size_t i = 0; i < n; i++) {
    int d = std::abs(int{a[i]} - int{b[i]});
    max_diff = std::max(max_diff, d);
    num_diff += d != 0;
  }
  return {max_diff, num_diff};
}

TEST(ResizePillow, EmbeddedPatchMatchesPillow) {
  using namespace pillow_data;  // NOLINT(google-build-using-namespace): test data tables
  struct Expectation {
    const PillowCase* pc;
    ResampleFilter filter;
    const uint8_t* expected;
    size_t size;
  };
#define SLUICE_PILLOW_CASE(pc, F, f)             \
  Expectation {                                  \
    &pc, ResampleFilter::F, pc##f, sizeof(pc##f) \
  }
  const Expectation expectations[] = {
      SLUICE_PILLOW_CASE(kDown, kNearest, Nn),
      SLUICE_PILLOW_CASE(kDown, kLinear, Linear),
      SLUICE_PILLOW_CASE(kDown, kCubic, Cubic),
      SLUICE_PILLOW_CASE(kDown, kLanczos3, Lanczos3),
      SLUICE_PILLOW_CASE(kUp, kNearest, Nn),
      SLUICE_PILLOW_CASE(kUp, kLinear, Linear),
      SLUICE_PILLOW_CASE(kUp, kCubic, Cubic),
      SLUICE_PILLOW_CASE(kUp, kLanczos3, Lanczos3),
      SLUICE_PILLOW_CASE(kBox, kNearest, Nn),
      SLUICE_PILLOW_CASE(kBox, kLinear, Linear),
      SLUICE_PILLOW_CASE(kBox, kCubic, Cubic),
      SLUICE_PILLOW_CASE(kBox, kLanczos3, Lanczos3),
      // TRIANGULAR is LINEAR that always widens: Pillow's BILINEAR downscale.
      SLUICE_PILLOW_CASE(kDown, kTriangular, Linear),
  };
#undef SLUICE_PILLOW_CASE
  for (const Expectation& e : expectations) {
    SCOPED_TRACE(make_string(e.pc->label, ", ", resample_filter_name(e.filter)));
    ASSERT_EQ(e.size, static_cast<size_t>(e.pc->out_h) * e.pc->out_w * 3);
    std::vector<uint8_t> out = resize_u8(kPatch, 12, 16, 3, *e.pc, e.filter);
    auto [max_diff, num_diff] = compare(out.data(), e.expected, out.size());
    // Tolerance 1; the fixed-point path is designed to be bit-identical to Pillow.
    EXPECT_LE(max_diff, 1);
    EXPECT_EQ(num_diff, 0) << "max diff " << max_diff;
  }
}

// ---- Shared photo set (offline; see the file comment) ----

struct RawImage {
  int64_t h = 0, w = 0, c = 0;
  bool f32 = false;
  std::vector<char> bytes;
};

std::vector<char> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

struct Stats {
  double max_diff = 0;
  int64_t num_diff = 0, num_values = 0, num_cases = 0;
};

TEST(ResizePillow, MatchesPillowOnPhotos) {
  const char* dir = std::getenv("SLUICE_RESIZE_PILLOW_DIR");
  if (!dir || !*dir) {
    GTEST_SKIP() << "set SLUICE_RESIZE_PILLOW_DIR to the output of pillow_reference.py photos";
  }
  std::ifstream manifest(std::string(dir) + "/manifest.txt");
  ASSERT_TRUE(manifest.good()) << "no manifest.txt in " << dir;
  std::map<std::string, RawImage> images;
  std::map<std::string, Stats> stats;  // by "type filter"
  std::vector<std::byte> scratch;      // reused across cases, as an operator would
  std::string line;
  while (std::getline(manifest, line)) {
    std::istringstream ls(line);
    std::string kind;
    ls >> kind;
    if (kind == "image") {
      std::string name, type;
      RawImage im;
      ls >> name >> im.h >> im.w >> im.c >> type;
      im.f32 = type == "f32";
      im.bytes = read_file(std::string(dir) + "/" + name + ".raw");
      ASSERT_EQ(im.bytes.size(), static_cast<size_t>(im.h * im.w * im.c * (im.f32 ? 4 : 1)))
          << name;
      images[name] = std::move(im);
      continue;
    }
    ASSERT_EQ(kind, "case") << line;
    std::string image, filter_name, expected_name;
    ResizeSampleParams p;
    ls >> image >> filter_name >> p.geometry.out_h >> p.geometry.out_w >> p.geometry.src_y0 >>
        p.geometry.src_x0 >> p.geometry.src_y1 >> p.geometry.src_x1 >> expected_name;
    // "<FILTER>_NOAA": antialias off (numpy reference, see pillow_reference.py).
    const size_t noaa = filter_name.find("_NOAA");
    const ResampleFilter filter = parse_resample_filter(filter_name.substr(0, noaa));
    p.filters = {filter, filter, noaa == std::string::npos};
    const RawImage& im = images.at(image);
    const DType type = im.f32 ? DType::kFloat32 : DType::kUInt8;
    const std::vector<char> expected = read_file(std::string(dir) + "/" + expected_name + ".raw");
    std::vector<char> out(expected.size(), 0x5a);
    ConstHwcImage src(im.bytes.data(), type, im.h, im.w, im.c);
    HwcImage dst{out.data(), type, p.geometry.out_h, p.geometry.out_w, im.c};
    ASSERT_EQ(out.size(),
              static_cast<size_t>(dst.height * dst.width * dst.channels) * (im.f32 ? 4 : 1))
        << expected_name;
    size_t need = resize_cpu_scratch_size(src, dst, p);
    if (scratch.size() < need) scratch.resize(need);
    resize_cpu(src, dst, p, scratch);

    Stats& s = stats[make_string(im.f32 ? "f32 " : "u8  ", filter_name)];
    s.num_cases++;
    double case_max = 0;
    const size_t n = out.size() / (im.f32 ? 4 : 1);
    for (size_t i = 0; i < n; i++) {
      double d;
      if (im.f32) {
        const float a = reinterpret_cast<const float*>(out.data())[i];
        const float b = reinterpret_cast<const float*>(expected.data())[i];
        d = std::abs(static_cast<double>(a) - b);
      } else {
        d = std::abs(int{static_cast<uint8_t>(out[i])} - int{static_cast<uint8_t>(expected[i])});
      }
      case_max = std::max(case_max, d);
      s.num_diff += d != 0;
    }
    s.num_values += static_cast<int64_t>(n);
    s.max_diff = std::max(s.max_diff, case_max);
    // uint8 within 1 (the brief; expected exact); float (Pillow accumulates in double, we in
    // float, values up to ~200) within 1e-3.
    EXPECT_LE(case_max, im.f32 ? 1e-3 : 1.0) << expected_name;
  }
  ASSERT_FALSE(stats.empty()) << "no cases in the manifest";
  std::cout << "type filter       cases  values       differing  max|diff|\n";
  for (const auto& [key, s] : stats) {
    std::cout << key << std::string(18 - key.size(), ' ') << s.num_cases << "  " << s.num_values
              << "  " << s.num_diff << "  " << s.max_diff << "\n";
  }
}

}  // namespace
}  // namespace sluice::kernels
