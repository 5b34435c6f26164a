// libFuzzer target: the ListObjectsV2 page parser (io/s3_client.h), which reads what an S3
// endpoint (or a proxy in front of it) answers.
//
// parse_list_page may only raise IOError. On success, every key it reports must be a substring
// of the input after entity decoding, so no key is longer than the input, and a continuation
// token is returned only when the page says it is truncated.

#include <string>
#include <string_view>

#include "fuzz_common.h"
#include "sluice/core/error.h"
#include "sluice/io/s3_client.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice;
  std::string_view xml(reinterpret_cast<const char*>(data), size);
  try {
    size_t keys = 0;
    std::string token = parse_list_page(xml, [&](std::string_view key, uint64_t) {
      if (key.size() > size) fuzz::fuzz_fail("a key longer than the page");
      ++keys;
    });
    if (!token.empty() && xml.find("<IsTruncated>") == std::string_view::npos) {
      fuzz::fuzz_fail("a continuation token from a page that is not truncated");
    }
    if (keys > size) fuzz::fuzz_fail("more keys than bytes");
  } catch (const IOError&) {
  } catch (const std::exception& e) {
    fuzz::fuzz_fail_unexpected("parse_list_page", e);
  }
  return 0;
}
