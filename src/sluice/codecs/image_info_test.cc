// Header inspection: format sniffing, JPEG facts against libjpeg's own jpeg_read_header, PNG
// facts against the PngSuite naming scheme, EXIF parsing, errors, crop-window geometry.

#include <gtest/gtest.h>

#include <cctype>
#include <cstring>

#include "sluice/codecs/codec_test_util.h"

namespace sluice::codecs {
namespace {

using testing::list_files;
using testing::read_file;

std::vector<uint8_t> bytes_of(const char* s) {
  return std::vector<uint8_t>(s, s + std::strlen(s));
}

std::string peek_error(const std::vector<uint8_t>& b) {
  try {
    peek_image(b.data(), b.size());
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "";
}

TEST(ImageInfo, DetectsFormatFromMagicBytesOnly) {
  const uint8_t jpeg[] = {0xFF, 0xD8, 0xFF, 0xE0};
  const uint8_t png[] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  EXPECT_EQ(detect_format(jpeg, sizeof(jpeg)), ImageFormat::kJpeg);
  EXPECT_EQ(detect_format(png, sizeof(png)), ImageFormat::kPng);
  EXPECT_EQ(detect_format(png, 7), ImageFormat::kUnknown);
  EXPECT_EQ(detect_format(reinterpret_cast<const uint8_t*>("BM\x10"), 3), ImageFormat::kBmp);
  for (const char* s : {"P1 ", "P2\n", "P3\t", "P4#", "P5\r", "P6 "}) {
    EXPECT_EQ(detect_format(reinterpret_cast<const uint8_t*>(s), 3), ImageFormat::kPnm) << s;
  }
  EXPECT_EQ(detect_format(reinterpret_cast<const uint8_t*>("P7 "), 3), ImageFormat::kUnknown);
  EXPECT_EQ(detect_format(reinterpret_cast<const uint8_t*>("P6x"), 3), ImageFormat::kUnknown);
  EXPECT_EQ(detect_format(nullptr, 0), ImageFormat::kUnknown);

  const std::string html = peek_error(bytes_of("<html><body>404 Not Found</body></html>"));
  EXPECT_NE(html.find("unrecognised image format"), std::string::npos) << html;
  EXPECT_NE(html.find("3c 68 74 6d"), std::string::npos) << html;  // "<htm" in hex
  EXPECT_NE(peek_error({}).find("0 bytes"), std::string::npos);
}

// Reads the header with libjpeg itself (fresh decompressor, C-style setjmp frame).
struct LibjpegHeader {
  bool ok = false;
  int width = 0, height = 0, components = 0;
  J_COLOR_SPACE cs = JCS_UNKNOWN;
  bool progressive = false, arith = false;
  int h[4] = {}, v[4] = {};
};
void libjpeg_header_c(const std::vector<uint8_t>* b, LibjpegHeader* h, jpeg_decompress_struct* ci,
                      testing::RefJpegError* err) {
  ci->err = jpeg_std_error(&err->pub);
  err->pub.error_exit = testing::ref_error_exit;
  jpeg_create_decompress(ci);
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(ci);
    return;
  }
  jpeg_mem_src(ci, b->data(), static_cast<unsigned long>(b->size()));
  jpeg_read_header(ci, TRUE);
  h->ok = true;
  h->width = ci->image_width, h->height = ci->image_height, h->components = ci->num_components;
  h->cs = ci->jpeg_color_space, h->progressive = ci->progressive_mode, h->arith = ci->arith_code;
  for (int c = 0; c < ci->num_components && c < 4; ++c) {
    h->h[c] = ci->comp_info[c].h_samp_factor, h->v[c] = ci->comp_info[c].v_samp_factor;
  }
  jpeg_destroy_decompress(ci);
}

TEST(ImageInfo, JpegFactsMatchLibjpeg) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  auto files = list_files(data / "photos", ".jpg");
  auto more = list_files(data / "jpeg_variants", ".jpg");
  files.insert(files.end(), more.begin(), more.end());
  int compared = 0;
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    const auto b = read_file(f);
    const ImageInfo info = peek_image(b.data(), b.size());
    ASSERT_EQ(info.format, ImageFormat::kJpeg);
    LibjpegHeader h;
    jpeg_decompress_struct ci;
    testing::RefJpegError err;
    libjpeg_header_c(&b, &h, &ci, &err);
    if (!h.ok) {  // libjpeg-turbo 2.1.5 refuses 12-bit and lossless in jpeg_read_header
      EXPECT_FALSE(info.jpeg.decodable());
      EXPECT_TRUE(info.jpeg.precision != 8 || info.jpeg.lossless);
      continue;
    }
    EXPECT_EQ(info.width, h.width);
    EXPECT_EQ(info.height, h.height);
    EXPECT_EQ(info.channels, h.components);
    EXPECT_EQ(info.jpeg.progressive, static_cast<bool>(h.progressive));
    EXPECT_EQ(info.jpeg.arithmetic, static_cast<bool>(h.arith));
    const JpegColorSpace want = h.cs == JCS_GRAYSCALE ? JpegColorSpace::kGray
                                : h.cs == JCS_YCbCr   ? JpegColorSpace::kYCbCr
                                : h.cs == JCS_RGB     ? JpegColorSpace::kRGB
                                : h.cs == JCS_CMYK    ? JpegColorSpace::kCMYK
                                : h.cs == JCS_YCCK    ? JpegColorSpace::kYCCK
                                                      : JpegColorSpace::kUnknown;
    EXPECT_EQ(info.jpeg.color_space, want);
    for (int c = 0; c < h.components && c < 4; ++c) {
      EXPECT_EQ(info.jpeg.h_samp[c], h.h[c]);
      EXPECT_EQ(info.jpeg.v_samp[c], h.v[c]);
    }
    ++compared;
  }
  EXPECT_EQ(compared, 79);
}

TEST(ImageInfo, JpegSubsamplingCodingAndUnsupportedVariants) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  const auto v = data / "jpeg_variants";
  auto peek = [&](const std::string& rel) {
    const auto b = read_file(v / rel);
    return peek_image(b.data(), b.size());
  };
  const std::pair<const char*, ChromaSubsampling> sub[] = {
      {"gen_coffee_444.jpg", ChromaSubsampling::k444},
      {"gen_coffee_422.jpg", ChromaSubsampling::k422},
      {"gen_coffee_420.jpg", ChromaSubsampling::k420},
      {"gen_coffee_440.jpg", ChromaSubsampling::k440},
      {"gen_coffee_411.jpg", ChromaSubsampling::k411},
      {"gen_coffee_410.jpg", ChromaSubsampling::k410},
      {"dali_luma2x4_640x426.jpg", ChromaSubsampling::kOther}};
  for (const auto& [f, s] : sub)
    EXPECT_EQ(peek(std::string("subsampling/") + f).jpeg.subsampling, s) << f;
  EXPECT_EQ(peek("color/gen_coffee_gray.jpg").jpeg.subsampling, ChromaSubsampling::kNone);
  EXPECT_EQ(peek("color/gen_coffee_gray.jpg").jpeg.color_space, JpegColorSpace::kGray);
  EXPECT_EQ(peek("color/gen_coffee_cmyk_adobe0.jpg").jpeg.color_space, JpegColorSpace::kCMYK);
  EXPECT_EQ(peek("color/pillow_pil_sample_cmyk_ycck_adobe2.jpg").jpeg.color_space,
            JpegColorSpace::kYCCK);
  EXPECT_EQ(peek("color/gen_coffee_rgb_colorspace_no_ycc.jpg").jpeg.color_space,
            JpegColorSpace::kRGB);

  const ImageInfo p = peek("coding/gen_coffee_progressive_restart_420.jpg");
  EXPECT_TRUE(p.jpeg.progressive);
  EXPECT_EQ(p.jpeg.sof_marker, 0xC2);
  // cjpeg -restart 2 (rows): 76 MCUs for the interleaved DC scans (the DRI before the first
  // SOS, which peek reports); the later AC scans get their own DRI (150 blocks).
  EXPECT_EQ(p.jpeg.restart_interval, 76);
  const ImageInfo a = peek("coding/gen_coffee_arithmetic_progressive_420.jpg");
  EXPECT_TRUE(a.jpeg.arithmetic && a.jpeg.progressive);
  EXPECT_EQ(a.jpeg.sof_marker, 0xCA);

  const ImageInfo twelve = peek("coding/ijg_testorig12_12bit.jpg");
  EXPECT_EQ(twelve.jpeg.precision, 12);
  EXPECT_EQ(twelve.bit_depth, 12);
  EXPECT_FALSE(twelve.jpeg.decodable());
  const ImageInfo lossless = peek("coding/dali_lossless_sof3_gray_16bit_640x426.jpg");
  EXPECT_TRUE(lossless.jpeg.lossless);
  EXPECT_EQ(lossless.jpeg.sof_marker, 0xC3);
  EXPECT_EQ(lossless.jpeg.precision, 16);
  EXPECT_EQ(lossless.width, 640);
  EXPECT_EQ(lossless.height, 426);
}

TEST(ImageInfo, JpegHeaderErrorsArePrecise) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  const auto bad = data / "bad" / "generated";
  const std::pair<const char*, const char*> cases[] = {
      {"soi_only.jpg", "truncated"},
      {"truncated_inside_dqt.jpg", "declares 67 bytes but only 18 remain"},
      {"segment_length_past_eof.jpg", "remain"},
      {"sof_width_zero.jpg", "width 0"},
      {"no_scan_headers_then_eoi.jpg", "no SOS marker"},
      {"text_named.jpg", "unrecognised image format"},
      {"zero_bytes.png", "0 bytes"}};
  for (const auto& [f, needle] : cases) {
    const std::string msg = peek_error(read_file(bad / f));
    EXPECT_NE(msg.find(needle), std::string::npos) << f << ": " << msg;
  }
}

// PngSuite names encode the header: [3] 'n'/'i' interlace, [4] colour type, [6..7] bit depth.
TEST(ImageInfo, PngFactsMatchPngSuiteNames) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  int n = 0;
  for (const auto& f : list_files(data / "png_variants" / "pngsuite", ".png")) {
    const std::string name = f.filename().string();
    SCOPED_TRACE(name);
    const auto b = read_file(f);
    const ImageInfo info = peek_image(b.data(), b.size());
    ASSERT_EQ(info.format, ImageFormat::kPng);
    EXPECT_EQ(info.png.interlaced, name[3] == 'i');
    EXPECT_EQ(static_cast<int>(info.png.color_type), name[4] - '0');
    EXPECT_EQ(info.bit_depth, std::stoi(name.substr(6, 2)));
    if (name[0] == 's' && std::isdigit(name[1])) {  // sNN: NxN
      EXPECT_EQ(info.width, std::stoi(name.substr(1, 2)));
      EXPECT_EQ(info.height, info.width);
    } else {
      EXPECT_EQ(info.width, 32);
      EXPECT_EQ(info.height, 32);
    }
    EXPECT_EQ(info.png.has_trns, name[0] == 't' && name != "tp0n0g08.png" &&
                                     name != "tp0n2c08.png" && name != "tp0n3p08.png");
    ++n;
  }
  EXPECT_EQ(n, 111);
}

TEST(ImageInfo, PngHeaderErrors) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  const auto c = data / "png_variants" / "pngsuite_corrupt";
  EXPECT_NE(peek_error(read_file(c / "xhdn0g08.png")).find("IHDR CRC mismatch"), std::string::npos);
  EXPECT_NE(peek_error(read_file(c / "xc1n0g08.png")).find("invalid colour type 1"),
            std::string::npos);
  EXPECT_NE(peek_error(read_file(c / "xd0n2c08.png")).find("invalid bit depth 0"),
            std::string::npos);
  EXPECT_NE(peek_error(read_file(c / "xs1n0g01.png")).find("unrecognised"), std::string::npos);
  EXPECT_NE(peek_error(read_file(c / "xcrn0g04.png")).find("unrecognised"), std::string::npos);
}

// A TIFF blob with IFD0 = {Orientation (type `type`) = v}.
std::vector<uint8_t> exif_blob(bool little, int type, uint32_t v, bool prefix = false) {
  std::vector<uint8_t> b;
  if (prefix) b = {'E', 'x', 'i', 'f', 0, 0};
  auto u16 = [&](uint32_t x) {
    if (little) {
      b.push_back(x & 255), b.push_back(x >> 8 & 255);
    } else {
      b.push_back(x >> 8 & 255), b.push_back(x & 255);
    }
  };
  auto u32 = [&](uint32_t x) {
    if (little) {
      u16(x & 0xFFFF), u16(x >> 16);
    } else {
      u16(x >> 16), u16(x & 0xFFFF);
    }
  };
  b.push_back(little ? 'I' : 'M'), b.push_back(little ? 'I' : 'M');
  u16(42), u32(8);
  u16(2);                                        // two entries
  u16(0x010F), u16(2), u32(4), u32(0x41424300);  // Make (ASCII), a decoy
  u16(0x0112), u16(type), u32(1);
  if (type == 3) {
    u16(v), u16(0);
  } else {
    u32(v);
  }
  u32(0);
  return b;
}

TEST(ImageInfo, ExifOrientationParsing) {
  for (bool le : {true, false}) {
    for (uint32_t v = 1; v <= 8; ++v) {
      const auto b = exif_blob(le, 3, v);
      EXPECT_EQ(parse_exif_orientation(b.data(), b.size()), static_cast<int>(v));
      const auto p = exif_blob(le, 3, v, true);
      EXPECT_EQ(parse_exif_orientation(p.data(), p.size()), static_cast<int>(v));
      const auto l = exif_blob(le, 4, v);
      EXPECT_EQ(parse_exif_orientation(l.data(), l.size()), static_cast<int>(v));
    }
    for (uint32_t bad : {0u, 9u, 65535u}) {
      const auto b = exif_blob(le, 3, bad);
      EXPECT_EQ(parse_exif_orientation(b.data(), b.size()), 1);
    }
    auto b = exif_blob(le, 3, 6);
    // Every truncation of the blob is safe and yields 6 only when the entry is complete.
    for (size_t n = 0; n < b.size(); ++n) {
      const int o = parse_exif_orientation(b.data(), n);
      EXPECT_TRUE(o == 1 || (o == 6 && n >= 8 + 2 + 24)) << n;
    }
    b[2] ^= 1;  // magic 42 broken
    EXPECT_EQ(parse_exif_orientation(b.data(), b.size()), 1);
  }
  auto b = exif_blob(true, 3, 6);
  b[4] = 0xF0;  // IFD offset past the blob
  EXPECT_EQ(parse_exif_orientation(b.data(), b.size()), 1);
  b = exif_blob(true, 3, 6);
  b[8] = 0xFF, b[9] = 0xFF;  // 65535 entries declared: stops at the end of the blob
  EXPECT_EQ(parse_exif_orientation(b.data(), b.size()), 6);
  b = exif_blob(true, 7, 6);  // UNDEFINED type
  EXPECT_EQ(parse_exif_orientation(b.data(), b.size()), 1);
  EXPECT_EQ(parse_exif_orientation(nullptr, 0), 1);
}

TEST(ImageInfo, OrientedSizeAndWindowMappingRoundTrip) {
  ImageInfo info;
  info.width = 7, info.height = 4;
  for (int o = 1; o <= 8; ++o) {
    info.orientation = o;
    const ImageSize s = oriented_size(info);
    EXPECT_EQ(s, (o >= 5 ? ImageSize{4, 7} : ImageSize{7, 4}));
    EXPECT_EQ(oriented_size(info, false), (ImageSize{7, 4}));
    // Exhaustive over every window of the oriented image: the mapped window lies inside the
    // raw image, has the same area, and maps back.
    for (int64_t y = 0; y < s.height; ++y)
      for (int64_t x = 0; x < s.width; ++x)
        for (int64_t h = 1; y + h <= s.height; ++h)
          for (int64_t w = 1; x + w <= s.width; ++w) {
            const CropWindow win{y, x, h, w};
            const CropWindow r = oriented_to_raw(win, {7, 4}, o);
            ASSERT_TRUE(r.x >= 0 && r.y >= 0 && r.x + r.w <= 7 && r.y + r.h <= 4);
            ASSERT_EQ(r.w * r.h, w * h);
            ASSERT_EQ(raw_to_oriented(r, {7, 4}, o), win);
          }
  }
}

}  // namespace
}  // namespace sluice::codecs
