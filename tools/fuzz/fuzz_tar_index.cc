// libFuzzer target: the tar header walk (io/tar_archive.h) and DALI's WebDataset index format
// (io/webdataset_index.h).
//
// The first input byte picks the parser (even: the rest is a tar archive; odd: an index text).
// A tar may only raise IOError; the members it yields must lie inside the input, in order, with
// block-aligned data offsets. An index may only raise InvalidArgument; one that parses must have
// the count its header declares and block-aligned offsets. Either way the samples are then
// matched to ext groups chosen from the input (kept, skipped or refused as missing_component_
// behavior says: only InvalidArgument), and an index whose names are plain tokens must come back
// unchanged from format_wds_index.

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_common.h"
#include "sluice/core/error.h"
#include "sluice/io/tar_archive.h"
#include "sluice/io/webdataset_index.h"

namespace {

using namespace sluice;
using sluice::fuzz::Choices;
using sluice::fuzz::fuzz_fail;
using sluice::fuzz::fuzz_fail_unexpected;

bool plain_token(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == 0) {
      return false;
    }
  }
  return true;
}

void check_members(const std::vector<TarMember>& members, size_t size) {
  int64_t last = -1;
  for (const TarMember& m : members) {
    if (m.header_offset <= last || m.header_offset % kTarBlockSize != 0 ||
        m.data_offset != m.header_offset + kTarBlockSize || m.size < 0 ||
        m.data_offset + m.size > static_cast<int64_t>(size)) {
      fuzz_fail("a tar member lies outside the archive or out of order:", m.name.c_str());
    }
    last = m.header_offset;
  }
}

void match_all_ways(const WdsRawIndex& raw, Choices& c) {
  static const char* kExts[] = {"jpg", "cls", "jpg;png", "JPG;txt", "a.b", ""};
  std::vector<std::string> ext;
  const int n = 1 + static_cast<int>(c.below(3));
  for (int i = 0; i < n; ++i) ext.push_back(kExts[c.below(6)]);
  const WdsMissing policy = static_cast<WdsMissing>(c.below(3));
  try {
    WdsShardSamples s = match_wds_samples(raw, make_wds_outputs(ext, c.one_in(2), policy), "x");
    if (static_cast<int64_t>(s.slots.size()) != s.size() * n) fuzz_fail("slot table size");
    for (int64_t i = 0; i < s.size(); ++i) {
      for (int o = 0; o < n; ++o) {
        const WdsComponent* comp = s.component(i, o);
        if (comp == nullptr && policy != WdsMissing::kEmpty) fuzz_fail("missing output kept");
      }
    }
  } catch (const InvalidArgument& e) {
    if (policy != WdsMissing::kError) fuzz_fail("match refused a sample outside 'error'");
    sluice::fuzz::note_expected("match_wds_samples", e);
  }
}

void roundtrip(const WdsRawIndex& idx) {
  for (const WdsComponent& comp : idx.components) {
    if (!plain_token(comp.ext) || !plain_token(comp.filename)) return;
  }
  if (idx.samples.empty()) return;
  for (const WdsRawSample& s : idx.samples) {
    if (s.count == 0) return;
  }
  const std::string text = format_wds_index(idx);
  WdsRawIndex back;
  try {
    back = parse_wds_index(text, "roundtrip");
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("parse_wds_index(format_wds_index(...))", e);
  }
  if (format_wds_index(back) != text) fuzz_fail("index does not survive format + parse");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  Choices c(data, size);
  // An exact-size heap copy, so that ASan catches a read one byte past the end.
  const std::vector<uint8_t> bytes(data + 1, data + size);
  if (data[0] % 2 == 0) {
    std::vector<TarMember> members;
    try {
      scan_tar(
          [&](int64_t off, void* dst, size_t n) -> size_t {
            if (off < 0 || static_cast<size_t>(off) > bytes.size()) fuzz_fail("read outside");
            const size_t k = std::min(n, bytes.size() - static_cast<size_t>(off));
            if (k > 0) std::memcpy(dst, bytes.data() + off, k);
            return k;
          },
          static_cast<int64_t>(bytes.size()), "fuzz.tar",
          [&](const TarMember& m) { members.push_back(m); });
    } catch (const IOError& e) {
      sluice::fuzz::note_expected("scan_tar", e);
      return 0;
    } catch (const std::exception& e) {
      fuzz_fail_unexpected("scan_tar", e);
    }
    check_members(members, bytes.size());
    const WdsRawIndex raw = wds_index_from_tar(members);
    match_all_ways(raw, c);
    roundtrip(raw);
    return 0;
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  WdsRawIndex raw;
  try {
    raw = parse_wds_index(text, "fuzz.idx");
  } catch (const InvalidArgument& e) {
    sluice::fuzz::note_expected("parse_wds_index", e);
    return 0;
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("parse_wds_index", e);
  }
  for (const WdsComponent& comp : raw.components) {
    if (comp.offset % kTarBlockSize != 0 || comp.offset < 0 || comp.size < 0) {
      fuzz_fail("an accepted component has a bad offset or size");
    }
  }
  match_all_ways(raw, c);
  roundtrip(raw);
  return 0;
}
