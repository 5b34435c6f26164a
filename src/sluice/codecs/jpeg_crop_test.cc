// Fused crop decoding: a cropped decode must equal full-decode-then-crop bit for bit, for every
// subsampling, coding mode and odd size, with and without EXIF orientation.

#include <gtest/gtest.h>

#include <random>

#include "sluice/codecs/codec_test_util.h"

namespace sluice::codecs {
namespace {

using testing::crop;
using testing::decode;
using testing::first_difference;
using testing::Image;
using testing::list_files;
using testing::read_file;

// Windows exercising the edges and odd positions of a W x H image, plus `random` seeded ones.
std::vector<CropWindow> windows_for(int64_t W, int64_t H, int random, uint32_t seed) {
  std::vector<CropWindow> out = {
      {0, 0, H, W},                            // everything
      {0, 0, 1, 1},                            // top-left pixel
      {H - 1, W - 1, 1, 1},                    // bottom-right pixel
      {0, 0, 1, W},         {H - 1, 0, 1, W},  // first / last row
      {0, 0, H, 1},         {0, W - 1, H, 1},  // first / last column
  };
  auto add = [&](int64_t x, int64_t y, int64_t w, int64_t h) {
    x = std::clamp<int64_t>(x, 0, W - 1), y = std::clamp<int64_t>(y, 0, H - 1);
    w = std::clamp<int64_t>(w, 1, W - x), h = std::clamp<int64_t>(h, 1, H - y);
    out.push_back({y, x, h, w});
  };
  // Around iMCU boundaries (8, 16, 32 pixels) and odd offsets.
  for (int64_t o : {1, 7, 8, 9, 15, 16, 17, 31, 33}) {
    add(o, o, W / 3, H / 3);
    add(W - o - 5, H - o - 3, 5, 3);
    add(o, H / 2, W - 2 * o, 2);
  }
  std::mt19937 rng(seed);
  for (int i = 0; i < random; ++i) {
    const int64_t w = 1 + static_cast<int64_t>(rng() % W), h = 1 + static_cast<int64_t>(rng() % H);
    add(static_cast<int64_t>(rng() % (W - w + 1)), static_cast<int64_t>(rng() % (H - h + 1)), w, h);
  }
  return out;
}

void check_crops(const testing::fs::path& path, DecoderScratch& scratch, int random,
                 std::initializer_list<OutputColor> colors) {
  SCOPED_TRACE(path.string());
  const auto bytes = read_file(path);
  const ImageInfo info = peek_image(bytes.data(), bytes.size());
  if (info.format == ImageFormat::kJpeg && !info.jpeg.decodable()) return;
  for (OutputColor color : colors) {
    SCOPED_TRACE(static_cast<int>(color));
    DecodeParams p;
    p.color = color;
    const Image full = decode(bytes, p, scratch);
    uint32_t seed = 1234;
    for (const CropWindow& w : windows_for(full.width, full.height, random, seed++)) {
      p.crop = w;
      const Image got = decode(bytes, p, scratch);
      ASSERT_EQ(first_difference(got, crop(full, w)), "")
          << "window {" << w.x << ", " << w.y << ", " << w.w << ", " << w.h << "}";
    }
  }
}

TEST(JpegCrop, EverySubsamplingMatchesFullDecode) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto files = list_files(data / "jpeg_variants" / "subsampling", ".jpg");
  ASSERT_EQ(files.size(), 17u);
  for (const auto& f : files) check_crops(f, scratch, 40, {OutputColor::kRGB, OutputColor::kYCbCr});
}

TEST(JpegCrop, CodingModesColourSpacesAndOddSizes) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  for (const char* dir : {"coding", "color", "odd_size"}) {
    for (const auto& f : list_files(data / "jpeg_variants" / dir, ".jpg")) {
      check_crops(f, scratch, 12, {OutputColor::kRGB, OutputColor::kGray});
    }
  }
}

TEST(JpegCrop, PhotosIncludingProgressive) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  for (const auto& f : list_files(data / "photos", ".jpg")) {
    check_crops(f, scratch, 6, {OutputColor::kBGR});
  }
}

// With EXIF orientation the window is in output coordinates: it must equal cropping the
// oriented full decode, for all eight orientations.
TEST(JpegCrop, WithOrientation) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto files = list_files(data / "jpeg_variants" / "orientation", ".jpg");
  ASSERT_EQ(files.size(), 11u);
  for (const auto& f : files) check_crops(f, scratch, 25, {OutputColor::kRGB});
}

// The same region read through crop + orientation equals the per-pixel orientation reference
// applied to a raw crop: checks the window mapping independently of the full-decode path.
TEST(JpegCrop, WindowMappingAgainstRawDecode) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto dir = data / "jpeg_variants" / "orientation";
  const auto bytes = read_file(dir / "dali_padlock_orient1_horizontal.jpg");
  DecodeParams raw_p;
  raw_p.adjust_orientation = false;
  const Image raw = decode(bytes, raw_p, scratch);
  for (int o = 1; o <= 8; ++o) {
    SCOPED_TRACE(o);
    const Image oriented = testing::orient_reference(raw, o);
    const ImageSize raw_size{raw.width, raw.height};
    for (const CropWindow& w : windows_for(oriented.width, oriented.height, 10, 99 + o)) {
      const CropWindow r = oriented_to_raw(w, raw_size, o);
      EXPECT_EQ(raw_to_oriented(r, raw_size, o), w);
      const Image via_raw = testing::orient_reference(crop(raw, r), o);
      ASSERT_EQ(first_difference(via_raw, crop(oriented, w)), "");
    }
  }
}

}  // namespace
}  // namespace sluice::codecs
