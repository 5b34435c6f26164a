#include "sluice/codecs/nvjpeg/jpeg_header_scan.h"

#include <gtest/gtest.h>

#include <vector>

#include "sluice/codecs/nvjpeg/nvjpeg_test_util.h"
#include "sluice/testing/test_data.h"

namespace sluice::nvjpeg {
namespace {

// A minimal header: SOI, optional APP0 JFIF / APP14 Adobe, a DQT defining table 0 (unless
// `dqt` is false), SOF0 with the given component ids (all using table `table`), SOS over all
// components. Enough for the marker scan (no Huffman tables, no entropy data).
std::vector<uint8_t> make_header(bool jfif, int adobe_transform, std::vector<uint8_t> ids,
                                 bool dqt = true, uint8_t table = 0) {
  std::vector<uint8_t> d = {0xFF, 0xD8};
  if (jfif) {
    d.insert(d.end(),
             {0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0});
  }
  if (adobe_transform >= 0) {
    d.insert(d.end(), {0xFF, 0xEE, 0x00, 0x0E, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0,
                       static_cast<uint8_t>(adobe_transform)});
  }
  if (dqt) {
    d.insert(d.end(), {0xFF, 0xDB, 0x00, 67, 0x00});
    d.insert(d.end(), 64, 1);
  }
  if (dqt) {
    d.insert(d.end(), {0xFF, 0xDB, 0x00, 67, 0x00});
    d.insert(d.end(), 64, 1);
  }
  uint8_t n = static_cast<uint8_t>(ids.size());
  uint16_t len = static_cast<uint16_t>(8 + 3 * n);
  d.insert(d.end(), {0xFF, 0xC0, static_cast<uint8_t>(len >> 8), static_cast<uint8_t>(len), 8, 0,
                     16, 0, 16, n});
  for (uint8_t id : ids) d.insert(d.end(), {id, 0x11, table});
  uint16_t sos_len = static_cast<uint16_t>(6 + 2 * n);
  d.insert(d.end(),
           {0xFF, 0xDA, static_cast<uint8_t>(sos_len >> 8), static_cast<uint8_t>(sos_len), n});
  for (uint8_t id : ids) d.insert(d.end(), {id, 0x00});
  d.insert(d.end(), {0, 63, 0});
  return d;
}

JpegColorModel scan(const std::vector<uint8_t>& d) {
  return scan_jpeg_header(d.data(), d.size()).color;
}
bool undefined_table(const std::vector<uint8_t>& d) {
  return scan_jpeg_header(d.data(), d.size()).undefined_quant_table;
}

TEST(JpegHeaderScan, FollowsLibjpegRulesOnSyntheticHeaders) {
  EXPECT_EQ(scan(make_header(false, -1, {1})), JpegColorModel::kGray);
  EXPECT_EQ(scan(make_header(false, -1, {1, 2, 3})), JpegColorModel::kYCbCr);
  EXPECT_EQ(scan(make_header(false, -1, {'R', 'G', 'B'})), JpegColorModel::kRGB);
  EXPECT_EQ(scan(make_header(true, -1, {'R', 'G', 'B'})), JpegColorModel::kYCbCr);  // JFIF wins
  EXPECT_EQ(scan(make_header(false, 0, {1, 2, 3})), JpegColorModel::kRGB);
  EXPECT_EQ(scan(make_header(false, 1, {'R', 'G', 'B'})), JpegColorModel::kYCbCr);
  EXPECT_EQ(scan(make_header(false, -1, {1, 2, 3, 4})), JpegColorModel::kCMYK);
  EXPECT_EQ(scan(make_header(false, 0, {1, 2, 3, 4})), JpegColorModel::kCMYK);
  EXPECT_EQ(scan(make_header(false, 2, {1, 2, 3, 4})), JpegColorModel::kYCCK);
  EXPECT_EQ(scan(make_header(false, -1, {1, 2})), JpegColorModel::kUnknown);
}

TEST(JpegHeaderScan, FindsQuantTablesTheFirstScanLacks) {
  EXPECT_FALSE(undefined_table(make_header(true, -1, {1, 2, 3})));
  EXPECT_TRUE(undefined_table(make_header(true, -1, {1, 2, 3}, /*dqt=*/false)));
  EXPECT_TRUE(undefined_table(make_header(true, -1, {1}, /*dqt=*/true, /*table=*/1)));
  EXPECT_TRUE(undefined_table(make_header(true, -1, {1}, /*dqt=*/true, /*table=*/9)));
}

TEST(JpegHeaderScan, RejectsNonJpegAndTruncatedData) {
  EXPECT_EQ(scan_jpeg_header(nullptr, 0).color, JpegColorModel::kUnknown);
  EXPECT_EQ(scan({}), JpegColorModel::kUnknown);
  EXPECT_EQ(scan({0xFF, 0xD8}), JpegColorModel::kUnknown);
  EXPECT_EQ(scan({'<', 'h', 't', 'm', 'l', '>'}), JpegColorModel::kUnknown);
  std::vector<uint8_t> full = make_header(false, 0, {1, 2, 3});
  // Every truncation either stops before the SOF (unknown) or still sees all of it, and never
  // reports a missing table (the scan it would belong to is cut).
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + n);
    JpegColorModel m = scan(cut);
    EXPECT_TRUE(m == JpegColorModel::kUnknown || m == JpegColorModel::kRGB) << "cut at " << n;
    EXPECT_FALSE(undefined_table(cut)) << "cut at " << n;
  }
  // A segment length running past the end stops the scan.
  std::vector<uint8_t> bad = {0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 0x00};
  EXPECT_EQ(scan(bad), JpegColorModel::kUnknown);
}

TEST(JpegHeaderScan, ClassifiesTheColorVariants) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  const auto dir = data / "jpeg_variants" / "color";
  struct Case {
    const char* file;
    JpegColorModel want;
  } cases[] = {
      {"gen_coffee_rgb_colorspace_no_ycc.jpg", JpegColorModel::kRGB},
      {"gen_coffee_cmyk_adobe0.jpg", JpegColorModel::kCMYK},
      {"pillow_pil_sample_cmyk_ycck_adobe2.jpg", JpegColorModel::kYCCK},
      {"gen_coffee_gray.jpg", JpegColorModel::kGray},
      {"ijg_testimggray.jpg", JpegColorModel::kGray},
  };
  for (const Case& c : cases) {
    auto bytes = test::read_file(dir / c.file);
    EXPECT_EQ(color_model_name(scan(bytes)), color_model_name(c.want)) << c.file;
  }
  // Every photo and the Adobe-transform-1 files are YCbCr.
  for (const auto& p : test::list_files(data / "photos", /*jpeg_only=*/true)) {
    auto bytes = test::read_file(p);
    JpegColorModel m = scan(bytes);
    EXPECT_TRUE(m == JpegColorModel::kYCbCr || m == JpegColorModel::kGray)
        << p.filename() << ": " << color_model_name(m);
  }
  auto flower = test::read_file(data / "jpeg_variants/coding/pillow_flower2_restart38_444.jpg");
  EXPECT_EQ(scan(flower), JpegColorModel::kYCbCr);
}

TEST(JpegHeaderScan, AgreesWithLibjpegOnQuantTablesOfRealFiles) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  auto missing = test::read_file(data / "bad/generated/missing_dqt.jpg");
  EXPECT_TRUE(undefined_table(missing));
  for (const char* dir : {"jpeg_variants", "photos"}) {
    for (const auto& p : test::list_files(data / dir, /*jpeg_only=*/true)) {
      auto bytes = test::read_file(p);
      EXPECT_FALSE(undefined_table(bytes)) << p;
    }
  }
}

}  // namespace
}  // namespace sluice::nvjpeg
