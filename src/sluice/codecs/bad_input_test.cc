// Broken, truncated and misleading inputs: every file decodes or raises DecodeError (never any
// other exception, crash or hang), within 2 s each; the corrupt-data policy of image_decoder.h
// holds for the files SOURCES.md describes; deterministic truncations and bit flips of valid
// images never crash.

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <random>

#include "sluice/codecs/codec_test_util.h"

namespace sluice::codecs {
namespace {

using testing::decode;
using testing::list_files;
using testing::read_file;

enum class Outcome { kDecoded, kDecodeError };

// Decodes `bytes` as RGB; any exception other than DecodeError fails the test.
Outcome try_decode(const std::vector<uint8_t>& bytes, DecoderScratch& scratch,
                   std::string* message = nullptr, DecodeParams p = {}) {
  try {
    const ImageInfo info = peek_image(bytes.data(), bytes.size());
    const Shape s = decoded_shape(info, p);
    std::vector<uint8_t> out(static_cast<size_t>(volume(s)) * dtype_size(p.dtype));
    decode_image(bytes.data(), bytes.size(), info, p, scratch, out.data());
    return Outcome::kDecoded;
  } catch (const DecodeError& e) {
    if (message) *message = e.what();
    return Outcome::kDecodeError;
  }
}

TEST(BadInput, EveryFileDecodesOrRaisesDecodeError) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  auto files = list_files(data / "bad", ".jpg");
  auto png = list_files(data / "bad", ".png");
  files.insert(files.end(), png.begin(), png.end());
  ASSERT_EQ(files.size(), 57u);
  std::map<std::string, Outcome> outcome;
  for (const auto& f : files) {
    const auto bytes = read_file(f);
    const auto t0 = std::chrono::steady_clock::now();
    std::string msg;
    const Outcome o = try_decode(bytes, scratch, &msg);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 2.0) << f;
    const std::string rel = f.lexically_relative(data / "bad").string();
    outcome[rel] = o;
    if (o == Outcome::kDecodeError) {
      EXPECT_FALSE(msg.empty()) << rel;
    }
    std::printf("  %-50s %s %s\n", rel.c_str(),
                o == Outcome::kDecoded ? "decoded" : "DecodeError:", msg.c_str());
  }
  // Policy (Note [Corrupt data policy]): truncation and corrupt entropy data are errors.
  for (const char* f : {"generated/corrupt_huffman_data_baseline.jpg",
                        "generated/missing_eoi_baseline.jpg",
                        "generated/restart_markers_misnumbered.jpg",
                        "generated/truncated_after_sos_header.jpg",
                        "generated/truncated_baseline_at_50pct.jpg",
                        "generated/truncated_progressive_after_scan1.jpg",
                        "generated/truncated_progressive_at_50pct.jpg",
                        "pillow/truncated_jpeg.jpg",
                        "generated/corrupt_dht_bogus_counts.jpg",
                        "generated/missing_dqt.jpg",
                        "generated/png_bad_idat_crc.png",
                        "generated/png_corrupt_zlib_valid_crc.png",
                        "generated/png_truncated_at_50pct.png",
                        "libpng_crashers/badcrc.png",
                        "libpng_crashers/badadler.png",
                        "libpng_crashers/huge_IDAT.png",
                        "pillow/truncated_image.png",
                        "pillow/broken_data_stream.png",
                        "generated/zero_bytes.jpg",
                        "generated/html_error_page_named.jpg",
                        "generated/sof_65535x65535_small_data.jpg",
                        "generated/png_ihdr_65535x65535_small_data.png"}) {
    EXPECT_EQ(outcome.at(f), Outcome::kDecodeError) << f;
  }
  // Misnamed files are sniffed by content. A PNG without IEND, or (truncated_end_chunk.png) cut
  // in the header of a second IDAT after the complete, CRC-checked zlib stream, has all its
  // rows. The zTXt bomb's text chunks are skipped unread.
  for (const char* f : {"generated/valid_jpeg_named.png", "generated/valid_png_named.jpg",
                        "generated/png_missing_iend.png", "pillow/truncated_end_chunk.png",
                        "pillow/png_decompression_dos.png"}) {
    EXPECT_EQ(outcome.at(f), Outcome::kDecoded) << f;
  }
}

// 65535 x 65535 headers are refused from the header, before any buffer exists.
TEST(BadInput, HugeHeadersAreRefusedBeforeAllocation) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  for (const char* f : {"generated/sof_65535x65535_small_data.jpg",
                        "generated/png_ihdr_65535x65535_small_data.png"}) {
    DecoderScratch scratch;
    const auto bytes = read_file(data / "bad" / f);
    const ImageInfo info = peek_image(bytes.data(), bytes.size());
    EXPECT_EQ(info.width, 65535);
    EXPECT_EQ(info.height, 65535);
    uint8_t dummy[4];  // never written: the limit check comes first
    try {
      decode_image(bytes.data(), bytes.size(), info, DecodeParams{}, scratch, dummy);
      ADD_FAILURE() << f << " decoded";
    } catch (const DecodeError& e) {
      EXPECT_NE(std::string(e.what()).find("4294836225 pixels"), std::string::npos) << e.what();
    }
    EXPECT_EQ(scratch.buffer_bytes(), 0u) << f;
  }
}

// Every strict prefix of a JPEG is truncated data and must be refused; prefixes of PNGs either
// decode (only when all rows are present) or raise DecodeError.
TEST(BadInput, TruncationsNeverCrash) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  const std::pair<const char*, bool> files[] = {
      {"photos/pillow_hopper.jpg", true},
      {"jpeg_variants/coding/ijg_testimgp_progressive.jpg", true},
      {"jpeg_variants/coding/ijg_testimgari_arithmetic.jpg", true},
      {"jpeg_variants/coding/gen_coffee_restart_every_7_mcus_420.jpg", true},
      {"png_variants/pngsuite/basn6a16.png", false},
      {"png_variants/pngsuite/basi3p08.png", false},
      {"png_variants/photo/gen_chelsea_palette16_trns.png", false}};
  for (const auto& [name, is_jpeg] : files) {
    const auto full = read_file(data / name);
    std::vector<size_t> cuts;
    for (size_t n = 0; n < std::min<size_t>(full.size(), 700); ++n) cuts.push_back(n);
    for (size_t k = 1; k < 64; ++k) cuts.push_back(full.size() * k / 64);
    cuts.push_back(full.size() - 1);
    for (size_t n : cuts) {
      const std::vector<uint8_t> cut(full.begin(), full.begin() + n);
      const Outcome o = try_decode(cut, scratch);
      if (is_jpeg) {
        EXPECT_EQ(o, Outcome::kDecodeError) << name << " cut at " << n;
      }
    }
    EXPECT_EQ(try_decode(full, scratch), Outcome::kDecoded) << name;
  }
}

TEST(BadInput, BitFlipsNeverCrash) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  DecoderScratch scratch;
  std::mt19937 rng(2024);
  int errors = 0, decoded = 0;
  for (const char* name :
       {"photos/pillow_hopper.jpg", "jpeg_variants/coding/ijg_testimgp_progressive.jpg",
        "jpeg_variants/coding/ijg_testimgari_arithmetic.jpg",
        "jpeg_variants/color/pillow_pil_sample_cmyk_ycck_adobe2.jpg",
        "png_variants/pngsuite/basi6a08.png", "png_variants/pngsuite/basn3p04.png"}) {
    const auto full = read_file(data / name);
    for (int trial = 0; trial < 150; ++trial) {
      auto bytes = full;
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int i = 0; i < flips; ++i) bytes[rng() % bytes.size()] ^= uint8_t(1u << (rng() % 8));
      DecodeParams p;
      p.color = static_cast<OutputColor>(trial % 5);
      if (trial % 3 == 0) p.crop = CropWindow{1, 1, 7, 5};
      const Outcome o = try_decode(bytes, scratch, nullptr, p);
      (o == Outcome::kDecoded ? decoded : errors)++;
    }
  }
  std::printf("  bit flips: %d decoded, %d DecodeError\n", decoded, errors);
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace sluice::codecs
