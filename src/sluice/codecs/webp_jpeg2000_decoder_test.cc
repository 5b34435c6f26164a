// WebP and JPEG 2000: images encoded with libwebp and OpenJPEG, decoded and compared with the
// libraries' own full decodes (WebPDecodeRGB(A)) or the lossless source; crops, headers, bad
// input. Without a library, decoding names the package to install.

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "sluice/codecs/codec_test_util.h"

#if SLUICE_HAS_WEBP
#include <webp/decode.h>
#include <webp/encode.h>
#endif
#if SLUICE_HAS_OPENJPEG
#include <openjpeg.h>
#endif

namespace sluice::codecs {
namespace {

using testing::decode_as;
using testing::Image;

std::vector<uint8_t> random_pixels(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  // Smooth-ish content so that lossy codecs have something photo-like to chew on.
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 7 / 3) + (rng() % 32));
  return v;
}

// Truncations and corrupted bytes (the 16-byte header left intact) give a DecodeError or an
// image, never a crash.
void survives_bad_input(const std::vector<uint8_t>& bytes) {
  testing::decode_damaged(bytes, {.step = 1 + bytes.size() / 60, .keep = 16});
}

#if SLUICE_HAS_WEBP

std::vector<uint8_t> encode_webp(const std::vector<uint8_t>& px, int w, int h, bool alpha,
                                 bool lossless) {
  uint8_t* out = nullptr;
  const int stride = w * (alpha ? 4 : 3);
  size_t n = 0;
  if (lossless) {
    n = alpha ? WebPEncodeLosslessRGBA(px.data(), w, h, stride, &out)
              : WebPEncodeLosslessRGB(px.data(), w, h, stride, &out);
  } else {
    n = alpha ? WebPEncodeRGBA(px.data(), w, h, stride, 80, &out)
              : WebPEncodeRGB(px.data(), w, h, stride, 80, &out);
  }
  std::vector<uint8_t> v(out, out + n);
  WebPFree(out);
  return v;
}

Image libwebp_decode(const std::vector<uint8_t>& b, bool alpha) {
  int w = 0, h = 0;
  uint8_t* p = alpha ? WebPDecodeRGBA(b.data(), b.size(), &w, &h)
                     : WebPDecodeRGB(b.data(), b.size(), &w, &h);
  Image img{w, h, alpha ? 4 : 3, {}, {}};
  img.data.assign(p, p + size_t(w) * h * img.channels);
  WebPFree(p);
  return img;
}

TEST(WebpDecoder, EqualsLibwebpLossyLosslessAndAlpha) {
  const int w = 45, h = 31;
  for (bool alpha : {false, true}) {
    for (bool lossless : {false, true}) {
      const auto px = random_pixels(size_t(w) * h * (alpha ? 4 : 3), 2);
      const auto bytes = encode_webp(px, w, h, alpha, lossless);
      ImageInfo info = peek_image(bytes.data(), bytes.size());
      EXPECT_EQ(info.format, ImageFormat::kWebp);
      EXPECT_EQ(info.width, w);
      EXPECT_EQ(info.height, h);
      EXPECT_EQ(info.webp.lossless, lossless);
      Image any = decode_as(bytes, OutputColor::kAnyData);
      Image ref = libwebp_decode(bytes, info.webp.has_alpha);
      EXPECT_EQ(any.channels, ref.channels);
      EXPECT_EQ(any.data, ref.data) << "alpha " << alpha << " lossless " << lossless;
      if (lossless && !alpha) {  // (lossless WebP may change the colour under alpha 0)
        EXPECT_EQ(any.data, px);
      }
      Image c = decode_as(bytes, OutputColor::kAnyData, DType::kUInt8, CropWindow{5, 3, 20, 11});
      EXPECT_EQ(testing::first_difference(c, testing::crop(ref, {5, 3, 20, 11})), "");
      Image c16 = decode_as(bytes, OutputColor::kRGB, DType::kUInt16);
      EXPECT_EQ(c16.data16[4], ref.data[alpha ? 5 : 4] * 257);
    }
  }
}

TEST(WebpDecoder, BadInput) {
  const int w = 40, h = 30;
  survives_bad_input(encode_webp(random_pixels(w * h * 3, 3), w, h, false, false));
  survives_bad_input(encode_webp(random_pixels(w * h * 4, 4), w, h, true, true));
}

#endif  // SLUICE_HAS_WEBP

#if SLUICE_HAS_OPENJPEG

struct Sink {
  std::vector<uint8_t> bytes;
  size_t pos = 0;
};

// Lossless (reversible 5/3) encode of an interleaved image with OpenJPEG.
std::vector<uint8_t> encode_jpeg2000(const std::vector<uint16_t>& px, int w, int h, int nc,
                                     int prec, bool jp2) {
  std::vector<opj_image_cmptparm_t> parms(nc);
  for (auto& c : parms) {
    std::memset(&c, 0, sizeof(c));
    c.dx = c.dy = 1;
    c.w = w, c.h = h, c.prec = prec;
  }
  opj_image_t* img =
      opj_image_create(nc, parms.data(), nc >= 3 ? OPJ_CLRSPC_SRGB : OPJ_CLRSPC_GRAY);
  img->x1 = w, img->y1 = h;
  for (int c = 0; c < nc; ++c) {
    for (int i = 0; i < w * h; ++i) img->comps[c].data[i] = px[size_t(i) * nc + c];
  }
  opj_cparameters_t p;
  opj_set_default_encoder_parameters(&p);
  p.tcp_numlayers = 1;
  p.tcp_rates[0] = 0;
  p.cp_disto_alloc = 1;
  p.numresolution = 3;
  p.tcp_mct = nc >= 3 ? 1 : 0;
  opj_codec_t* codec = opj_create_compress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  opj_setup_encoder(codec, &p, img);
  Sink sink;
  opj_stream_t* s = opj_stream_create(1 << 16, OPJ_FALSE);
  opj_stream_set_user_data(s, &sink, nullptr);
  opj_stream_set_write_function(s, [](void* buf, OPJ_SIZE_T n, void* u) -> OPJ_SIZE_T {
    auto* k = static_cast<Sink*>(u);
    if (k->pos + n > k->bytes.size()) k->bytes.resize(k->pos + n);
    std::memcpy(k->bytes.data() + k->pos, buf, n);
    k->pos += n;
    return n;
  });
  opj_stream_set_skip_function(s, [](OPJ_OFF_T n, void* u) -> OPJ_OFF_T {
    static_cast<Sink*>(u)->pos += n;
    return n;
  });
  opj_stream_set_seek_function(s, [](OPJ_OFF_T to, void* u) -> OPJ_BOOL {
    static_cast<Sink*>(u)->pos = static_cast<size_t>(to);
    return OPJ_TRUE;
  });
  EXPECT_TRUE(opj_start_compress(codec, img, s) && opj_encode(codec, s) &&
              opj_end_compress(codec, s));
  opj_stream_destroy(s);
  opj_destroy_codec(codec);
  opj_image_destroy(img);
  return sink.bytes;
}

TEST(Jpeg2000Decoder, LosslessJ2kAndJp2EqualTheSource) {
  const int w = 50, h = 27;
  for (bool jp2 : {false, true}) {
    for (int nc : {1, 3, 4}) {
      for (int prec : {8, 16}) {
        std::mt19937 rng(nc * prec);
        std::vector<uint16_t> px(size_t(w) * h * nc);
        for (auto& v : px) v = static_cast<uint16_t>(rng() & ((1u << prec) - 1));
        const auto bytes = encode_jpeg2000(px, w, h, nc, prec, jp2);
        ImageInfo info = peek_image(bytes.data(), bytes.size());
        ASSERT_EQ(info.format, ImageFormat::kJpeg2000);
        EXPECT_EQ(info.jp2.jp2, jp2);
        EXPECT_EQ(info.width, w);
        EXPECT_EQ(info.height, h);
        EXPECT_EQ(info.channels, nc);
        EXPECT_EQ(info.bit_depth, prec);
        Image any = decode_as(bytes, OutputColor::kAnyData, DType::kUInt16);
        ASSERT_EQ(any.channels, nc);
        for (size_t i = 0; i < px.size(); ++i) {
          ASSERT_EQ(any.data16[i], prec == 16 ? px[i] : px[i] * 257) << i;
        }
        const CropWindow win{5, 7, 13, 31};
        Image c = decode_as(bytes, OutputColor::kAnyData, DType::kUInt16, win);
        for (int64_t y = 0; y < win.h; ++y) {
          for (int64_t k = 0; k < win.w * nc; ++k) {
            ASSERT_EQ(c.data16[y * win.w * nc + k], any.data16[((win.y + y) * w + win.x) * nc + k]);
          }
        }
        if (prec == 8 && nc == 3) survives_bad_input(bytes);
      }
    }
  }
}

#endif  // SLUICE_HAS_OPENJPEG

TEST(OptionalFormats, DetectedFromTheBytes) {
  const uint8_t tiff_le[] = {'I', 'I', 42, 0, 8, 0, 0, 0};
  const uint8_t tiff_be[] = {'M', 'M', 0, 42, 0, 0, 0, 8};
  const uint8_t webp[] = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P'};
  const uint8_t jp2[] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
  const uint8_t j2k[] = {0xFF, 0x4F, 0xFF, 0x51};
  EXPECT_EQ(detect_format(tiff_le, sizeof(tiff_le)), ImageFormat::kTiff);
  EXPECT_EQ(detect_format(tiff_be, sizeof(tiff_be)), ImageFormat::kTiff);
  EXPECT_EQ(detect_format(webp, sizeof(webp)), ImageFormat::kWebp);
  EXPECT_EQ(detect_format(jp2, sizeof(jp2)), ImageFormat::kJpeg2000);
  EXPECT_EQ(detect_format(j2k, sizeof(j2k)), ImageFormat::kJpeg2000);
  // Truncated headers are named errors.
  EXPECT_THROW(peek_image(tiff_le, sizeof(tiff_le)), DecodeError);
  EXPECT_THROW(peek_image(webp, sizeof(webp)), DecodeError);
  EXPECT_THROW(peek_image(jp2, sizeof(jp2)), DecodeError);
  EXPECT_THROW(peek_image(j2k, sizeof(j2k)), DecodeError);
  auto message = [](const std::vector<uint8_t>& b) {
    try {
      peek_image(b.data(), b.size());
    } catch (const DecodeError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({'I', 'I', 42, 0, 0xFF, 0, 0, 0, 0, 0}).find("outside the 10-byte file"),
            std::string::npos);
  std::vector<uint8_t> no_codestream(jp2, jp2 + sizeof(jp2));
  no_codestream.insert(no_codestream.end(), {0, 0, 0, 8, 'f', 't', 'y', 'p'});
  EXPECT_NE(message(no_codestream).find("no codestream box"), std::string::npos);
  std::vector<uint8_t> riff(webp, webp + sizeof(webp));
  riff.insert(riff.end(), 20, 0);
  std::memcpy(&riff[12], "VP9 ", 4);
  EXPECT_NE(message(riff).find("unknown first chunk 'VP9 '"), std::string::npos);
}

}  // namespace
}  // namespace sluice::codecs
