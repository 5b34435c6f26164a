#include "sluice/codecs/jpeg_structure.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <vector>

#include "sluice/codecs/image_decoder.h"
#include "sluice/codecs/image_info.h"
#include "sluice/core/error.h"
#include "sluice/testing/test_data.h"

namespace sluice::codecs {
namespace {

std::vector<uint8_t> bytes_of(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

// Whether the CPU decoder accepts the file.
bool cpu_decodes(const std::vector<uint8_t>& b) {
  try {
    ImageInfo info = peek_image(b.data(), b.size());
    DecodeParams p;
    std::vector<uint8_t> out(static_cast<size_t>(volume(decoded_shape(info, p))));
    DecoderScratch scratch;
    decode_image(b.data(), b.size(), info, p, scratch, out.data());
    return true;
  } catch (const DecodeError&) {
    return false;
  }
}

TEST(JpegStructure, EveryValidJpegPasses) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  int n = 0;
  for (const auto& dir : {data / "photos", data / "jpeg_variants"}) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      if (e.path().extension() != ".jpg") continue;
      auto b = bytes_of(e.path());
      EXPECT_EQ(jpeg_structure_problem(b.data(), b.size()), "") << e.path();
      ++n;
    }
  }
  EXPECT_GT(n, 60);
}

TEST(JpegStructure, TruncationsAndBadRestartsAreCaught) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  auto b = bytes_of(data / "photos" / "pixabay_horse-197199_1280.jpg");
  for (size_t cut : {size_t(3), size_t(100), b.size() / 2, b.size() - 2, b.size() - 1}) {
    EXPECT_NE(jpeg_structure_problem(b.data(), cut), "") << cut;
  }
  auto bad = bytes_of(data / "bad" / "generated" / "restart_markers_misnumbered.jpg");
  EXPECT_NE(jpeg_structure_problem(bad.data(), bad.size()).find("restart"), std::string::npos);
}

TEST(JpegStructure, EveryBadJpegItFlagsIsAlsoRejectedByTheCpuDecoder) {
  SLUICE_REQUIRE_SHARED_DATA(data);
  for (const auto& e : std::filesystem::recursive_directory_iterator(data / "bad")) {
    if (!e.is_regular_file() || e.path().extension() == ".md") continue;
    auto b = bytes_of(e.path());
    if (b.size() < 2 || b[0] != 0xFF || b[1] != 0xD8) continue;
    if (!jpeg_structure_problem(b.data(), b.size()).empty()) {
      EXPECT_FALSE(cpu_decodes(b)) << e.path() << " is flagged but the CPU decoder accepts it";
    }
  }
}

}  // namespace
}  // namespace sluice::codecs
