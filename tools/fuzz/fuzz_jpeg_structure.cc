// libFuzzer target: the nvJPEG-independent structural JPEG check (jpeg_structure.h).
//
// jpeg_structure_problem must never read outside [data, data + size), must be deterministic,
// and must keep its promise to the mixed decoder: a stream it rejects is one the CPU decoder
// (libjpeg-turbo, with every data warning fatal) rejects too, so that the CPU and GPU paths
// agree on which files are bad. The second check decodes (whole image, RGB, at most 1 MP)
// only when the structure check reports a problem and the headers describe an image the CPU
// decoder supports.

#include <string>
#include <vector>

#include "fuzz_common.h"
#include "sluice/codecs/image_decoder.h"
#include "sluice/codecs/image_info.h"
#include "sluice/codecs/jpeg_structure.h"
#include "sluice/core/error.h"

namespace {

using namespace sluice;
using namespace sluice::codecs;
using sluice::fuzz::fuzz_fail;
using sluice::fuzz::fuzz_fail_unexpected;

constexpr int64_t kMaxPixels = int64_t{1} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static DecoderScratch scratch;

  // An exact-size heap copy, so that ASan catches a read one byte past the end.
  std::vector<uint8_t> bytes(data, data + size);
  const std::string problem = jpeg_structure_problem(bytes.data(), bytes.size());
  if (problem != jpeg_structure_problem(bytes.data(), bytes.size())) {
    fuzz_fail("jpeg_structure_problem is not deterministic");
  }
  if (problem.empty()) return 0;

  ImageInfo info;
  try {
    info = peek_image(bytes.data(), bytes.size());
  } catch (const DecodeError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("peek_image", e);
  }
  if (info.format != ImageFormat::kJpeg || !info.jpeg.decodable()) return 0;
  if (info.width * info.height > kMaxPixels) return 0;

  DecodeParams p;
  p.adjust_orientation = false;
  p.max_pixels = kMaxPixels;
  p.max_jpeg_scans = 100;
  std::vector<uint8_t> out;
  try {
    const Shape shape = decoded_shape(info, p);
    out.resize(static_cast<size_t>(volume(shape)));
    decode_image(bytes.data(), bytes.size(), info, p, scratch, out.data());
  } catch (const DecodeError& e) {
    sluice::fuzz::note_expected("decode_image", e);
    return 0;  // both reject it: consistent
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("decode_image", e);
  }
  fuzz_fail("jpeg_structure_problem rejects a stream the CPU decoder accepts:", problem.c_str());
}
