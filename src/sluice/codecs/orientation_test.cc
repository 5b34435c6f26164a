// EXIF orientation applied by decode_image: JPEG (APP1) and PNG (eXIf), against Pillow's
// ImageOps.exif_transpose and an independent per-pixel reference.

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>

#include "sluice/codecs/codec_test_util.h"
#include "sluice/codecs/decoder_internal.h"

namespace sluice::codecs {
namespace {

using testing::decode;
using testing::first_difference;
using testing::Image;
using testing::orient_reference;
using testing::read_file;

const char* kOrientFiles[9] = {nullptr,
                               "dali_padlock_orient1_horizontal.jpg",
                               "dali_padlock_orient2_mirror_horizontal.jpg",
                               "dali_padlock_orient3_rotate_180.jpg",
                               "dali_padlock_orient4_mirror_vertical.jpg",
                               "dali_padlock_orient5_mirror_horizontal_rotate_270.jpg",
                               "dali_padlock_orient6_rotate_90.jpg",
                               "dali_padlock_orient7_mirror_horizontal_rotate_90.jpg",
                               "dali_padlock_orient8_rotate_270.jpg"};

// Computed offline with Pillow 9.4 (same libjpeg-turbo):
//   ImageOps.exif_transpose(Image.open(f)).convert('RGB').getpixel((x, y))
struct PillowOriented {
  int orientation, x, y;
  uint8_t rgb[3];
};
constexpr PillowOriented kPillow[] = {
    {2, 0, 0, {30, 102, 64}},    {2, 639, 0, {41, 138, 103}},  {2, 37, 101, {40, 122, 82}},
    {3, 0, 0, {18, 87, 58}},     {3, 639, 0, {25, 111, 76}},   {3, 200, 300, {93, 198, 165}},
    {4, 0, 425, {41, 138, 103}}, {4, 37, 101, {37, 158, 117}}, {4, 200, 300, {242, 226, 229}},
    {5, 425, 0, {25, 111, 76}},  {5, 0, 639, {30, 102, 64}},   {5, 37, 101, {119, 202, 172}},
    {6, 0, 0, {25, 111, 76}},    {6, 37, 101, {59, 180, 137}}, {6, 200, 300, {138, 90, 78}},
    {7, 425, 0, {30, 102, 64}},  {7, 37, 101, {60, 163, 118}}, {7, 200, 300, {199, 155, 142}},
    {8, 0, 0, {30, 102, 64}},    {8, 0, 639, {41, 138, 103}},  {8, 37, 101, {68, 185, 141}},
    {8, 200, 300, {31, 122, 78}}};

TEST(Orientation, JpegExifMatchesPillowAndReference) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto dir = data / "jpeg_variants" / "orientation";
  // The ten padlock files store identical pixels (SOURCES.md; only the EXIF block differs), so
  // each correct upright output is the orientation transform of the no-EXIF decode.
  const auto plain = read_file(dir / "dali_padlock_no_exif.jpg");
  EXPECT_EQ(peek_image(plain.data(), plain.size()).orientation, 1);
  const Image raw = decode(plain, DecodeParams{}, scratch);
  for (const char* f :
       {"dali_padlock_exif_without_orientation_tag.jpg", "dali_padlock_orient1_horizontal.jpg"}) {
    const auto bytes = read_file(dir / f);
    EXPECT_EQ(peek_image(bytes.data(), bytes.size()).orientation, 1) << f;
    EXPECT_EQ(first_difference(decode(bytes, DecodeParams{}, scratch), raw), "") << f;
  }
  for (int o = 2; o <= 8; ++o) {
    SCOPED_TRACE(kOrientFiles[o]);
    const auto bytes = read_file(dir / kOrientFiles[o]);
    const ImageInfo info = peek_image(bytes.data(), bytes.size());
    ASSERT_EQ(info.orientation, o);
    EXPECT_EQ(oriented_size(info), (o >= 5 ? ImageSize{426, 640} : ImageSize{640, 426}));
    for (OutputColor c : {OutputColor::kRGB, OutputColor::kGray}) {
      DecodeParams p;
      p.color = c;
      const Image upright = decode(bytes, p, scratch);
      const Image raw_c = decode(plain, p, scratch);
      ASSERT_EQ(first_difference(upright, orient_reference(raw_c, o)), "");
      if (c != OutputColor::kRGB) continue;
      for (const auto& px : kPillow) {
        if (px.orientation != o) continue;
        for (int k = 0; k < 3; ++k) {
          EXPECT_EQ(upright.data[(px.y * upright.width + px.x) * 3 + k], px.rgb[k])
              << "(" << px.x << ", " << px.y << ")";
        }
      }
    }
    DecodeParams keep;
    keep.adjust_orientation = false;  // stored grid, EXIF ignored
    EXPECT_EQ(first_difference(decode(bytes, keep, scratch), raw), "");
  }
  // Pillow's 2x1 image with orientation 8 becomes 1x2.
  const auto small = read_file(dir / "pillow_orientation_rectangle_2x1_orient8.jpg");
  const Image s = decode(small, DecodeParams{}, scratch);
  EXPECT_EQ(s.width, 1);
  EXPECT_EQ(s.height, 2);
}

// Inserts an eXIf chunk (big-endian TIFF, Orientation = o) right after IHDR.
std::vector<uint8_t> with_png_exif(const std::vector<uint8_t>& png, int o) {
  const uint8_t tiff[] = {'M',  'M',  0, 42, 0, 0, 0, 8,  // header, IFD0 at 8
                          0,    1,                        // one entry
                          0x01, 0x12, 0, 3,  0, 0, 0, 1, 0, static_cast<uint8_t>(o),
                          0,    0,    0, 0,  0, 0};  // no next IFD
  std::vector<uint8_t> chunk = {0, 0, 0, sizeof(tiff), 'e', 'X', 'I', 'f'};
  chunk.insert(chunk.end(), tiff, tiff + sizeof(tiff));
  const uint32_t crc = static_cast<uint32_t>(crc32(0, chunk.data() + 4, chunk.size() - 4));
  for (int s = 24; s >= 0; s -= 8) chunk.push_back(static_cast<uint8_t>(crc >> s));
  std::vector<uint8_t> out(png.begin(), png.begin() + 33);  // signature + IHDR
  out.insert(out.end(), chunk.begin(), chunk.end());
  out.insert(out.end(), png.begin() + 33, png.end());
  return out;
}

TEST(Orientation, PngExifChunk) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto png = read_file(data / "photos" / "skimage_chelsea.png");
  const Image raw = decode(png, DecodeParams{}, scratch);
  for (int o = 1; o <= 8; ++o) {
    const auto bytes = with_png_exif(png, o);
    ASSERT_EQ(peek_image(bytes.data(), bytes.size()).orientation, o);
    EXPECT_EQ(first_difference(decode(bytes, DecodeParams{}, scratch), orient_reference(raw, o)),
              "")
        << o;
  }
}

// apply_orientation against the per-pixel reference for every orientation, channel count and
// element size, on odd sizes.
TEST(Orientation, ApplyOrientationMatchesReference) {
  std::mt19937 rng(7);
  for (int64_t W : {1, 2, 5, 16}) {
    for (int64_t H : {1, 3, 7}) {
      for (int c : {1, 2, 3, 4}) {
        for (size_t elem : {size_t{1}, size_t{2}}) {
          Image raw;
          raw.width = W, raw.height = H, raw.channels = c * static_cast<int>(elem);
          raw.data.resize(W * H * raw.channels);
          for (auto& v : raw.data) v = static_cast<uint8_t>(rng());
          for (int o = 1; o <= 8; ++o) {
            Image got = orient_reference(raw, o);  // geometry; data overwritten below
            std::fill(got.data.begin(), got.data.end(), 0xEE);
            detail::apply_orientation(raw.data.data(), {W, H}, c, elem, o, got.data.data());
            ASSERT_EQ(first_difference(got, orient_reference(raw, o)), "")
                << W << "x" << H << " c=" << c << " elem=" << elem << " o=" << o;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace sluice::codecs
