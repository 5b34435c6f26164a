// JPEG decoding: every lossy 8-bit JPEG of the shared data set against a plain libjpeg-turbo
// decode done here with the libjpeg API (bit-exact), CMYK/YCCK against Pillow, refusals and
// limits.

#include <gtest/gtest.h>

#include "sluice/codecs/codec_test_util.h"

namespace sluice::codecs {
namespace {

using testing::decode;
using testing::first_difference;
using testing::Image;
using testing::list_files;
using testing::read_file;
using testing::ref_decode_jpeg;

std::vector<testing::fs::path> all_jpegs(const testing::fs::path& data) {
  auto files = list_files(data / "photos", ".jpg");
  auto more = list_files(data / "jpeg_variants", ".jpg");
  files.insert(files.end(), more.begin(), more.end());
  return files;
}

// Independent statements of the documented formulas (pixel_convert.h), for the cases where
// libjpeg cannot produce the requested colour space itself.
uint8_t luma(int r, int g, int b) {
  return (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16;
}
void to_ycbcr(const uint8_t* rgb, uint8_t* out) {
  const int r = rgb[0], g = rgb[1], b = rgb[2];
  out[0] = luma(r, g, b);
  out[1] = (-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32767) >> 16;
  out[2] = (32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32767) >> 16;
}
void cmyk_to_rgb(const uint8_t* s, uint8_t* out) {  // Pillow: CMYK;I then cmyk2rgb
  const int k = s[3];
  for (int i = 0; i < 3; ++i) {
    const int t = (255 - s[i]) * k + 128;
    out[i] = static_cast<uint8_t>(k - (((t >> 8) + t) >> 8));
  }
}

// What our decoder must return for `color`, built from libjpeg's own outputs.
Image expected(const std::vector<uint8_t>& bytes, const ImageInfo& info, OutputColor color) {
  Image ref;
  const JpegColorSpace cs = info.jpeg.color_space;
  const bool cmyk = cs == JpegColorSpace::kCMYK || cs == JpegColorSpace::kYCCK;
  std::string err;
  auto run = [&](J_COLOR_SPACE s) {
    if (!ref_decode_jpeg(bytes, s, &ref, &err)) ADD_FAILURE() << "reference decode: " << err;
  };
  auto map_pixels = [&](int out_c, auto fn) {
    Image out;
    out.width = ref.width, out.height = ref.height, out.channels = out_c;
    out.data.resize(ref.width * ref.height * out_c);
    for (int64_t i = 0; i < ref.width * ref.height; ++i) {
      fn(&ref.data[i * ref.channels], &out.data[i * out_c]);
    }
    return out;
  };
  if (color == OutputColor::kAnyData) {
    color = info.jpeg.num_components == 1 ? OutputColor::kGray : OutputColor::kRGB;
  }
  if (cmyk) {
    run(JCS_CMYK);
    Image rgb = map_pixels(3, cmyk_to_rgb);
    ref = rgb;
    switch (color) {
      case OutputColor::kRGB:
        return rgb;
      case OutputColor::kBGR:
        return map_pixels(
            3, [](const uint8_t* s, uint8_t* d) { d[0] = s[2], d[1] = s[1], d[2] = s[0]; });
      case OutputColor::kGray:
        return map_pixels(1, [](const uint8_t* s, uint8_t* d) { d[0] = luma(s[0], s[1], s[2]); });
      default:
        return map_pixels(3, to_ycbcr);
    }
  }
  switch (color) {
    case OutputColor::kRGB:
      run(JCS_EXT_RGB);
      return ref;
    case OutputColor::kBGR:
      run(JCS_EXT_BGR);
      return ref;
    case OutputColor::kGray:
      run(JCS_GRAYSCALE);
      return ref;
    default:
      if (cs == JpegColorSpace::kYCbCr) {
        run(JCS_YCbCr);
        return ref;
      }
      run(JCS_EXT_RGB);
      return map_pixels(3, to_ycbcr);
  }
}

TEST(JpegDecoder, EveryLossyJpegMatchesLibjpegBitExact) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;  // one scratch for everything: reuse must not leak state
  int decoded = 0, refused = 0;
  for (const auto& path : all_jpegs(data)) {
    SCOPED_TRACE(path.string());
    const auto bytes = read_file(path);
    const ImageInfo info = peek_image(bytes.data(), bytes.size());
    ASSERT_EQ(info.format, ImageFormat::kJpeg);
    if (!info.jpeg.decodable()) {
      DecodeParams p;
      EXPECT_THROW(decode(bytes, p, scratch), DecodeError);
      ++refused;
      continue;
    }
    for (OutputColor c : {OutputColor::kRGB, OutputColor::kBGR, OutputColor::kGray,
                          OutputColor::kYCbCr, OutputColor::kAnyData}) {
      SCOPED_TRACE(static_cast<int>(c));
      DecodeParams p;
      p.color = c;
      p.adjust_orientation = false;
      const Image got = decode(bytes, p, scratch);
      const Image want = expected(bytes, info, c);
      ASSERT_EQ(first_difference(got, want), "");
    }
    ++decoded;
  }
  // photos/ has 15 JPEGs, jpeg_variants/ 69; 5 of those are 12-bit or lossless.
  EXPECT_EQ(decoded, 79);
  EXPECT_EQ(refused, 5);
}

TEST(JpegDecoder, RefusesTwelveBitAndLosslessWithClearMessage) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto coding = data / "jpeg_variants" / "coding";
  struct Case {
    const char* file;
    const char* needle;
  } cases[] = {{"ijg_testorig12_12bit.jpg", "12-bit"},
               {"ljt_test_optimize_12b_12bit_progressive_gray.jpg", "12-bit"},
               {"dali_lossless_sof3_gray_8bit_640x426.jpg", "lossless JPEG (SOF3)"},
               {"dali_lossless_sof3_gray_16bit_640x426.jpg", "16-bit"}};
  for (const auto& c : cases) {
    const auto bytes = read_file(coding / c.file);
    const ImageInfo info = peek_image(bytes.data(), bytes.size());
    EXPECT_FALSE(info.jpeg.decodable()) << c.file;
    try {
      decode(bytes, DecodeParams{}, scratch);
      ADD_FAILURE() << c.file << " decoded";
    } catch (const DecodeError& e) {
      EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos) << e.what();
    }
  }
}

// Expected values computed offline with Pillow 9.4 (same libjpeg-turbo 2.1.5):
//   im = Image.open(f); im.convert('RGB').getpixel((x, y)), im.convert('L').getpixel((x, y))
struct PillowPixel {
  int x, y;
  uint8_t rgb[3];
  uint8_t gray;
};
constexpr PillowPixel kPillowCmyk[] = {
    {0, 0, {21, 13, 8}, 15},        {599, 0, {230, 185, 142}, 194},
    {0, 399, {196, 135, 97}, 149},  {599, 399, {142, 59, 28}, 80},
    {123, 45, {165, 64, 21}, 89},   {300, 200, {247, 249, 255}, 249},
    {451, 377, {180, 94, 51}, 115}, {17, 288, {219, 149, 103}, 165}};
constexpr PillowPixel kPillowYcck[] = {{0, 0, {255, 13, 25}, 87},   {99, 99, {1, 4, 5}, 3},
                                       {46, 51, {255, 12, 27}, 86}, {27, 38, {255, 13, 23}, 86},
                                       {33, 43, {194, 17, 22}, 70}, {15, 31, {169, 17, 24}, 63}};

TEST(JpegDecoder, CmykAndYcckMatchPillow) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  auto check = [&](const char* file, const auto& pixels, JpegColorSpace cs) {
    SCOPED_TRACE(file);
    const auto bytes = read_file(data / "jpeg_variants" / "color" / file);
    const ImageInfo info = peek_image(bytes.data(), bytes.size());
    EXPECT_EQ(info.jpeg.color_space, cs);
    DecodeParams p;
    const Image rgb = decode(bytes, p, scratch);
    p.color = OutputColor::kGray;
    const Image gray = decode(bytes, p, scratch);
    p.color = OutputColor::kAnyData;
    EXPECT_EQ(decode(bytes, p, scratch).channels, 3);
    for (const auto& px : pixels) {
      const size_t i = static_cast<size_t>(px.y * rgb.width + px.x);
      for (int k = 0; k < 3; ++k) EXPECT_EQ(rgb.data[3 * i + k], px.rgb[k]) << px.x << "," << px.y;
      EXPECT_EQ(gray.data[i], px.gray) << px.x << "," << px.y;
    }
  };
  check("gen_coffee_cmyk_adobe0.jpg", kPillowCmyk, JpegColorSpace::kCMYK);
  check("pillow_pil_sample_cmyk_ycck_adobe2.jpg", kPillowYcck, JpegColorSpace::kYCCK);
}

TEST(JpegDecoder, SixteenBitOutputWidensExactly) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto bytes = read_file(data / "photos" / "pillow_hopper.jpg");
  DecodeParams p;
  const Image u8 = decode(bytes, p, scratch);
  p.dtype = DType::kUInt16;
  const Image u16 = decode(bytes, p, scratch);
  ASSERT_EQ(u16.data16.size(), u8.data.size());
  for (size_t i = 0; i < u8.data.size(); ++i) ASSERT_EQ(u16.data16[i], u8.data[i] * 257) << i;
}

TEST(JpegDecoder, PixelLimitIsCheckedBeforeDecoding) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto bytes = read_file(data / "photos" / "skimage_rocket.jpg");  // 640x427
  DecodeParams p;
  p.max_pixels = 640 * 427 - 1;
  try {
    decode(bytes, p, scratch);
    FAIL() << "over-limit image decoded";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("max_pixels"), std::string::npos) << e.what();
  }
  EXPECT_EQ(scratch.buffer_bytes(), 0u);  // refused before any allocation
  p.max_pixels = 640 * 427;
  EXPECT_NO_THROW(decode(bytes, p, scratch));
  p.max_pixels = 0;  // unlimited
  EXPECT_NO_THROW(decode(bytes, p, scratch));
}

TEST(JpegDecoder, ProgressiveScanLimit) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto bytes =
      read_file(data / "jpeg_variants" / "coding" / "gen_coffee_progressive_420.jpg");
  DecodeParams p;
  p.max_jpeg_scans = 9;  // the file has 10 scans
  try {
    decode(bytes, p, scratch);
    FAIL() << "scan limit not enforced";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("max_jpeg_scans"), std::string::npos) << e.what();
  }
  p.max_jpeg_scans = 10;
  const Image ok = decode(bytes, p, scratch);  // and the scratch is usable after the error
  Image ref;
  ASSERT_TRUE(ref_decode_jpeg(bytes, JCS_EXT_RGB, &ref));
  EXPECT_EQ(first_difference(ok, ref), "");
}

// Removes every segment with marker `m` before the first SOS.
std::vector<uint8_t> strip_segments(const std::vector<uint8_t>& in, uint8_t m) {
  std::vector<uint8_t> out(in.begin(), in.begin() + 2);
  size_t pos = 2;
  while (pos + 4 <= in.size() && in[pos] == 0xFF) {
    const size_t len = (size_t{in[pos + 2]} << 8) | in[pos + 3];
    if (in[pos + 1] == 0xDA) break;
    if (in[pos + 1] != m) out.insert(out.end(), in.begin() + pos, in.begin() + pos + 2 + len);
    pos += 2 + len;
  }
  out.insert(out.end(), in.begin() + pos, in.end());
  return out;
}

// Note [Table hygiene] in jpeg_decoder.cc: tables of one image must not leak into the next.
TEST(JpegDecoder, NoTableStateLeaksBetweenImages) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  const auto dir = data / "jpeg_variants";
  // cjpeg wrote gen_coffee_420.jpg with the standard Huffman tables; without its DHT segments
  // (a Motion-JPEG style frame) libjpeg falls back to the same standard tables.
  const auto plain = read_file(dir / "subsampling" / "gen_coffee_420.jpg");
  const auto no_dht = strip_segments(plain, 0xC4);
  ASSERT_LT(no_dht.size(), plain.size());
  const auto optimized = read_file(dir / "coding" / "gen_coffee_optimized_huffman_420.jpg");
  Image fresh;
  ASSERT_TRUE(ref_decode_jpeg(no_dht, JCS_EXT_RGB, &fresh));
  DecoderScratch scratch;
  decode(optimized, DecodeParams{}, scratch);  // leaves its own Huffman tables behind
  EXPECT_EQ(first_difference(decode(no_dht, DecodeParams{}, scratch), fresh), "");
  EXPECT_EQ(first_difference(decode(no_dht, DecodeParams{}, scratch),
                             decode(plain, DecodeParams{}, scratch)),
            "");
  // Without DQT a fresh decompressor fails; a reused one must too, not borrow old tables.
  const auto no_dqt = strip_segments(plain, 0xDB);
  std::string err;
  EXPECT_FALSE(ref_decode_jpeg(no_dqt, JCS_EXT_RGB, &fresh, &err));
  try {
    decode(no_dqt, DecodeParams{}, scratch);
    ADD_FAILURE() << "decoded without quantisation tables";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("Quantization table 0x00 was not defined"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(first_difference(decode(plain, DecodeParams{}, scratch), decode(plain, {}, scratch)),
            "");
}

TEST(JpegDecoder, RejectsMismatchedInfo) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const auto bytes = read_file(data / "photos" / "pillow_hopper.jpg");
  ImageInfo info = peek_image(bytes.data(), bytes.size());
  info.width += 1;
  std::vector<uint8_t> out(static_cast<size_t>(info.width * info.height * 3));
  EXPECT_THROW(decode_image(bytes.data(), bytes.size(), info, {}, scratch, out.data()),
               InvalidArgument);
}

}  // namespace
}  // namespace sluice::codecs
