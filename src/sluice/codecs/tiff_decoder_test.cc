// TIFF: files written with libtiff (strips, tiles, compressions, 1..16 bits, grey, alpha,
// palette, min-is-white, JPEG YCbCr, several pages, BigTIFF), decoded and compared with their
// source pixels and with libtiff's own RGBA decode; crops, orientation, limits, bad input.

#include <gtest/gtest.h>

#include "sluice/codecs/codec_test_util.h"

#if SLUICE_HAS_TIFF

#include <tiffio.h>
#include <unistd.h>

#include <random>

namespace sluice::codecs {
namespace {

using testing::decode_as;
using testing::Image;

struct TiffSpec {
  int width = 37, height = 23, spp = 3, bits = 8;
  int photometric = PHOTOMETRIC_RGB;
  int compression = COMPRESSION_NONE;
  int rows_per_strip = 5;
  int tile = 0;  // tile width = height; 0: strips
  int orientation = 1;
  int pages = 1;
  bool alpha = false;  // the last sample is unassociated alpha
  bool big = false;    // BigTIFF
};

// Random samples of spec.bits bits, packed per row as TIFF stores them.
std::vector<uint8_t> random_rows(const TiffSpec& s, uint32_t seed) {
  std::mt19937 rng(seed);
  const size_t row = (size_t(s.width) * s.spp * s.bits + 7) / 8;
  std::vector<uint8_t> v(row * s.height);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  if (s.bits == 16) {
    auto* p = reinterpret_cast<uint16_t*>(v.data());
    for (size_t i = 0; i < v.size() / 2; ++i) p[i] = static_cast<uint16_t>(rng());
  }
  return v;
}

std::vector<uint8_t> write_tiff(const TiffSpec& s, const std::vector<uint8_t>& rows,
                                const uint16_t* cmap = nullptr) {
  char path[] = "/tmp/sluice_tiff_XXXXXX";
  const int fd = mkstemp(path);
  close(fd);
  TIFF* t = TIFFOpen(path, s.big ? "w8" : "w");
  const size_t row = rows.size() / s.height;
  for (int page = 0; page < s.pages; ++page) {
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, s.width);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, s.height);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, s.spp);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, s.bits);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, s.photometric);
    TIFFSetField(t, TIFFTAG_COMPRESSION, s.compression);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_ORIENTATION, s.orientation);
    if (s.compression == COMPRESSION_JPEG) {
      TIFFSetField(t, TIFFTAG_JPEGQUALITY, 90);
      TIFFSetField(t, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    }
    if (s.alpha) {
      const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
      TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
    if (cmap != nullptr) {
      const int n = 1 << s.bits;
      TIFFSetField(t, TIFFTAG_COLORMAP, cmap, cmap + n, cmap + 2 * n);
    }
    if (s.tile > 0) {
      TIFFSetField(t, TIFFTAG_TILEWIDTH, s.tile);
      TIFFSetField(t, TIFFTAG_TILELENGTH, s.tile);
      const size_t px = size_t(s.spp) * s.bits / 8;
      std::vector<uint8_t> tile(TIFFTileSize(t));
      for (int ty = 0; ty < s.height; ty += s.tile) {
        for (int tx = 0; tx < s.width; tx += s.tile) {
          std::fill(tile.begin(), tile.end(), 0);
          for (int y = ty; y < std::min(ty + s.tile, s.height); ++y) {
            const int cols = std::min(s.tile, s.width - tx);
            std::memcpy(&tile[(y - ty) * s.tile * px], &rows[y * row + tx * px], cols * px);
          }
          TIFFWriteTile(t, tile.data(), tx, ty, 0, 0);
        }
      }
    } else {
      TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, s.rows_per_strip);
      std::vector<uint8_t> r(row);
      for (int y = 0; y < s.height; ++y) {
        std::memcpy(r.data(), &rows[y * row], row);
        TIFFWriteScanline(t, r.data(), y, 0);
      }
    }
    TIFFWriteDirectory(t);
  }
  TIFFClose(t);
  std::vector<uint8_t> bytes = testing::read_file(path);
  unlink(path);
  return bytes;
}

// libtiff's own decode: TIFFReadRGBAImageOriented (8-bit RGBA, top-left origin).
Image libtiff_rgb(const std::vector<uint8_t>& bytes) {
  char path[] = "/tmp/sluice_tiff_XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  close(fd);
  TIFF* t = TIFFOpen(path, "r");
  uint32_t w = 0, h = 0;
  TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
  std::vector<uint32_t> raster(size_t(w) * h);
  EXPECT_EQ(TIFFReadRGBAImageOriented(t, w, h, raster.data(), ORIENTATION_TOPLEFT, 0), 1);
  TIFFClose(t);
  unlink(path);
  Image img{w, h, 3, std::vector<uint8_t>(size_t(w) * h * 3), {}};
  for (size_t i = 0; i < raster.size(); ++i) {
    img.data[3 * i] = TIFFGetR(raster[i]);
    img.data[3 * i + 1] = TIFFGetG(raster[i]);
    img.data[3 * i + 2] = TIFFGetB(raster[i]);
  }
  return img;
}

TEST(TiffDecoder, StripsAndCompressionsEqualTheSourceAndLibtiff) {
  for (int compression :
       {COMPRESSION_NONE, COMPRESSION_LZW, COMPRESSION_ADOBE_DEFLATE, COMPRESSION_PACKBITS}) {
    TiffSpec s;
    s.compression = compression;
    const auto rows = random_rows(s, 1);
    const auto bytes = write_tiff(s, rows);
    Image out = decode_as(bytes);
    EXPECT_EQ(out.data, rows) << "compression " << compression;
    EXPECT_EQ(testing::first_difference(out, libtiff_rgb(bytes)), "");
    Image bgr = decode_as(bytes, OutputColor::kBGR);
    EXPECT_EQ(bgr.data[0], rows[2]);
  }
}

TEST(TiffDecoder, TilesAndCropsEqualTheFullImage) {
  for (int bits : {8, 16}) {
    TiffSpec s;
    s.width = 70, s.height = 45, s.tile = 16, s.bits = bits, s.compression = COMPRESSION_LZW;
    const auto rows = random_rows(s, 2);
    const auto bytes = write_tiff(s, rows);
    Image full = decode_as(bytes, OutputColor::kRGB, DType::kUInt16);
    const auto* src16 = reinterpret_cast<const uint16_t*>(rows.data());
    for (size_t i = 0; i < full.data16.size(); ++i) {
      const uint16_t want = bits == 16 ? src16[i] : rows[i] * 257;
      ASSERT_EQ(full.data16[i], want) << i;
    }
    for (CropWindow w : {CropWindow{0, 0, 45, 70}, CropWindow{17, 3, 20, 33},
                         CropWindow{44, 69, 1, 1}, CropWindow{16, 16, 16, 16}}) {
      Image c = decode_as(bytes, OutputColor::kRGB, DType::kUInt16, w);
      for (int64_t y = 0; y < w.h; ++y) {
        for (int64_t k = 0; k < w.w * 3; ++k) {
          ASSERT_EQ(c.data16[y * w.w * 3 + k], full.data16[((w.y + y) * 70 + w.x) * 3 + k]);
        }
      }
    }
  }
}

TEST(TiffDecoder, SixteenBitsNarrowToTheHighByte) {
  TiffSpec s;
  s.spp = 1, s.bits = 16, s.photometric = PHOTOMETRIC_MINISBLACK;
  const auto rows = random_rows(s, 3);
  const auto* src = reinterpret_cast<const uint16_t*>(rows.data());
  Image g = decode_as(write_tiff(s, rows), OutputColor::kAnyData);
  ASSERT_EQ(g.channels, 1);
  for (size_t i = 0; i < g.data.size(); ++i) ASSERT_EQ(g.data[i], src[i] >> 8);
}

TEST(TiffDecoder, GreyAlphaPaletteAndMinIsWhite) {
  TiffSpec ga;
  ga.spp = 2, ga.alpha = true, ga.photometric = PHOTOMETRIC_MINISBLACK;
  const auto ga_rows = random_rows(ga, 4);
  const auto ga_bytes = write_tiff(ga, ga_rows);
  Image any = decode_as(ga_bytes, OutputColor::kAnyData);
  EXPECT_EQ(any.channels, 2);
  EXPECT_EQ(any.data, ga_rows);
  Image rgb = decode_as(ga_bytes);
  EXPECT_EQ(rgb.data[3], ga_rows[2]);  // grey replicated, alpha dropped
  EXPECT_EQ(rgb.data[4], ga_rows[2]);

  TiffSpec rgba;
  rgba.spp = 4, rgba.alpha = true;
  const auto rgba_rows = random_rows(rgba, 5);
  EXPECT_EQ(decode_as(write_tiff(rgba, rgba_rows), OutputColor::kAnyData).data, rgba_rows);

  for (int bits : {1, 2, 4, 8}) {
    TiffSpec p;
    p.spp = 1, p.bits = bits, p.photometric = PHOTOMETRIC_PALETTE;
    std::vector<uint16_t> cmap(3 << bits);
    std::mt19937 rng(bits);
    for (auto& v : cmap) v = static_cast<uint16_t>(rng());
    const auto bytes = write_tiff(p, random_rows(p, 6), cmap.data());
    Image c16 = decode_as(bytes, OutputColor::kAnyData, DType::kUInt16);
    Image c8 = decode_as(bytes);
    ASSERT_EQ(c16.channels, 3);
    for (size_t i = 0; i < c8.data.size(); ++i) ASSERT_EQ(c8.data[i], c16.data16[i] >> 8);
    EXPECT_EQ(testing::first_difference(c8, libtiff_rgb(bytes)), "") << bits << "-bit palette";
  }

  for (int photometric : {PHOTOMETRIC_MINISWHITE, PHOTOMETRIC_MINISBLACK}) {
    for (int bits : {1, 4}) {
      TiffSpec m;
      m.spp = 1, m.bits = bits, m.photometric = photometric;
      const auto bytes = write_tiff(m, random_rows(m, 7));
      EXPECT_EQ(testing::first_difference(decode_as(bytes), libtiff_rgb(bytes)), "")
          << "photometric " << photometric << ", " << bits << " bits";
    }
  }
}

TEST(TiffDecoder, JpegYCbCrEqualsLibtiff) {
  TiffSpec s;
  s.width = 64, s.height = 32, s.rows_per_strip = 16;
  s.compression = COMPRESSION_JPEG, s.photometric = PHOTOMETRIC_YCBCR;
  const auto bytes = write_tiff(s, random_rows(s, 8));
  EXPECT_EQ(testing::first_difference(decode_as(bytes), libtiff_rgb(bytes)), "");
}

TEST(TiffDecoder, FirstPageOrientationAndBigTiff) {
  TiffSpec s;
  s.pages = 3;
  const auto rows = random_rows(s, 9);
  EXPECT_EQ(decode_as(write_tiff(s, rows)).data, rows);

  TiffSpec o;
  o.orientation = 6;
  const auto bytes = write_tiff(o, random_rows(o, 10));
  ImageInfo info = peek_image(bytes.data(), bytes.size());
  EXPECT_EQ(info.orientation, 6);
  Image rotated = decode_as(bytes);
  EXPECT_EQ(rotated.width, o.height);
  EXPECT_EQ(rotated.height, o.width);

  TiffSpec b;
  b.big = true;
  const auto big_rows = random_rows(b, 11);
  const auto big = write_tiff(b, big_rows);
  EXPECT_EQ(big[2], 43);
  EXPECT_EQ(peek_image(big.data(), big.size()).width, b.width);
  EXPECT_EQ(decode_as(big).data, big_rows);
}

TEST(TiffDecoder, HeaderLimitsAndBadInput) {
  TiffSpec s;
  s.compression = COMPRESSION_LZW;
  const auto bytes = write_tiff(s, random_rows(s, 12));
  ImageInfo info = peek_image(bytes.data(), bytes.size());
  EXPECT_EQ(info.format, ImageFormat::kTiff);
  EXPECT_EQ(info.width, 37);
  EXPECT_EQ(info.channels, 3);
  DecodeParams p;
  p.max_pixels = 37 * 23 - 1;
  EXPECT_THROW(decoded_shape(info, p), DecodeError);
  // Truncations and corrupted bytes: a DecodeError or an image, never a crash.
  testing::decode_damaged(bytes, {.step = 7, .trials = 200, .flips = 4, .seed = 13});
}

}  // namespace
}  // namespace sluice::codecs

#endif  // SLUICE_HAS_TIFF
