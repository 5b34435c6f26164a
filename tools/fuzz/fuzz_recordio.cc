// libFuzzer target: MXNet RecordIO records and .idx indexes (io/recordio.h), as readers.mxnet
// runs them.
//
// The input is one record's bytes as the index gives them (they may hold padding or the next
// record after it). parse_mxnet_record may only raise IOError; on success the data must lie in
// the input or in the scratch buffer of joined parts, and the labels must be one, or as many as
// the header's flag. The index parser gets the same bytes as text over two files; every span it
// returns must lie inside the data.

#include <string>
#include <vector>

#include "fuzz_common.h"
#include "sluice/core/error.h"
#include "sluice/io/recordio.h"

namespace {

using namespace sluice;
using sluice::fuzz::fuzz_fail;
using sluice::fuzz::fuzz_fail_unexpected;

volatile uint64_t g_sink;

bool inside(std::span<const uint8_t> part, const uint8_t* begin, size_t n) {
  return part.empty() || (part.data() >= begin && part.data() + part.size() <= begin + n);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::vector<uint8_t> scratch;  // reused across inputs, as a reader's thread reuses it
  try {
    MXNetRecord r = parse_mxnet_record({data, size}, scratch, 0);
    if (!inside(r.data, data, size) && !inside(r.data, scratch.data(), scratch.size())) {
      fuzz_fail("the data lies outside the record and the scratch buffer");
    }
    if (r.labels.empty()) fuzz_fail("a record without a label");
    g_sink = g_sink + sluice::fuzz::touch_bytes(r.data.data(), r.data.size()) + r.labels.size();
  } catch (const IOError& e) {
    sluice::fuzz::note_expected("parse_mxnet_record", e);
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("parse_mxnet_record", e);
  }
  try {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::vector<int64_t> sizes = {1000, 24};
    for (const RecordIOSpan& s : parse_recordio_index(text, sizes, "fuzz.idx")) {
      if (s.file > 1 || s.offset < 0 || s.offset >= sizes[s.file] || s.size <= 0 || s.size > 1024) {
        fuzz_fail("an index span outside the data was returned");
      }
    }
  } catch (const IOError& e) {
    sluice::fuzz::note_expected("parse_recordio_index", e);
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("parse_recordio_index", e);
  }
  return 0;
}
