#include "sluice/io/recordio.h"

#include <algorithm>
#include <cstring>

#include "sluice/core/bytes.h"
#include "sluice/core/error.h"
#include "sluice/io/index_text.h"

namespace sluice {
std::vector<RecordIOSpan> parse_recordio_index(std::string_view text,
                                               const std::vector<int64_t>& file_sizes,
                                               const std::string& name) {
  std::vector<std::pair<int64_t, int>> offsets;  // (offset, line)
  IndexNumbers numbers(text, name, "key offset");
  int fields = 0;
  int key_line = 1;
  int64_t v;
  int line;
  while (numbers.next(&v, &line)) {
    if (++fields % 2 == 0) {
      offsets.emplace_back(v, line);
    } else {
      key_line = line;
    }
  }
  if (fields % 2 != 0) {
    throw IOError(make_string("index '", name, "' line ", key_line,
                              ": a key without its offset (truncated index?)"));
  }
  std::vector<int64_t> starts{0};  // each file's first byte in the concatenation
  for (int64_t s : file_sizes) starts.push_back(starts.back() + s);
  const int64_t total = starts.back();
  std::sort(offsets.begin(), offsets.end());
  std::vector<RecordIOSpan> out;
  for (size_t i = 0; i < offsets.size(); ++i) {
    auto [off, at] = offsets[i];
    if (off >= total) {
      throw IOError(make_string("index '", name, "' line ", at, ": offset ", off,
                                " is past the end of the data (", total,
                                " bytes; stale or wrong index?)"));
    }
    int64_t end = i + 1 < offsets.size() ? offsets[i + 1].first : total;
    if (end == off) continue;  // DALI drops records of size 0 (repeated offsets)
    auto file = std::upper_bound(starts.begin(), starts.end(), off) - starts.begin() - 1;
    out.push_back({static_cast<uint32_t>(file), off - starts[file], end - off});
  }
  return out;
}

MXNetRecord parse_mxnet_record(std::span<const uint8_t> bytes, std::vector<uint8_t>& scratch,
                               int64_t offset) {
  auto fail = [&](size_t at, const auto&... what) -> void {
    throw IOError(make_string("RecordIO record at offset ", offset, ", byte ", at, ": ", what...));
  };
  std::span<const uint8_t> payload;
  size_t pos = 0;
  for (int part = 0;; ++part) {
    if (bytes.size() - pos < 8) fail(pos, "truncated part header");
    uint32_t magic = load_le32(bytes.data() + pos);
    if (magic != kRecordIOMagic) fail(pos, "wrong magic number (not a RecordIO record)");
    uint32_t lrec = load_le32(bytes.data() + pos + 4);
    uint32_t cflag = lrec >> 29, length = lrec & ((1u << 29) - 1);
    pos += 8;
    if (length > bytes.size() - pos) {
      fail(pos, "part of ", length, " bytes runs past the record's ", bytes.size(),
           " bytes (truncated?)");
    }
    auto chunk = bytes.subspan(pos, length);
    pos += length;
    pos += std::min<size_t>((4 - length % 4) % 4, bytes.size() - pos);  // padding
    if (part == 0 && cflag == 0) {
      payload = chunk;
      break;
    }
    if (part == 0 ? cflag != 1 : (cflag != 2 && cflag != 3)) {
      fail(pos, "continuation flag ", cflag, " out of sequence in part ", part);
    }
    if (part == 0) scratch.clear();
    if (part > 0) {
      const uint8_t* m = reinterpret_cast<const uint8_t*>(&kRecordIOMagic);
      scratch.insert(scratch.end(), m, m + 4);
    }
    scratch.insert(scratch.end(), chunk.begin(), chunk.end());
    if (cflag == 3) {
      payload = scratch;
      break;
    }
  }
  if (payload.size() < kIRHeaderSize) {
    fail(0, "payload of ", payload.size(), " bytes is shorter than the 24-byte IRHeader");
  }
  MXNetRecord r;
  uint32_t flag = load_le32(payload.data());
  std::memcpy(&r.id, payload.data() + 8, 8);
  if (flag == 0) {
    float label;
    std::memcpy(&label, payload.data() + 4, 4);
    r.labels = {label};
    r.data = payload.subspan(kIRHeaderSize);
    return r;
  }
  if (flag > (payload.size() - kIRHeaderSize) / 4) {
    fail(0, "IRHeader flag ", flag, " asks for more labels than the ", payload.size(),
         "-byte payload holds");
  }
  r.labels.resize(flag);
  std::memcpy(r.labels.data(), payload.data() + kIRHeaderSize, size_t{flag} * 4);
  r.data = payload.subspan(kIRHeaderSize + size_t{flag} * 4);
  return r;
}

}  // namespace sluice
