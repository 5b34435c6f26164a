#include "sluice/io/tfrecord.h"

#include <array>
#include <cstring>

#include "sluice/core/bytes.h"
#include "sluice/core/error.h"
#include "sluice/io/index_text.h"

namespace sluice {
namespace {

// Slicing-by-8 tables of the reflected Castagnoli polynomial.
constexpr std::array<std::array<uint32_t, 256>, 8> make_tables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  }
  return t;
}
constexpr auto kTables = make_tables();

}  // namespace

uint32_t crc32c(std::span<const uint8_t> data) {
  uint32_t c = 0xFFFFFFFFu;
  const uint8_t* p = data.data();
  size_t n = data.size();
  for (; n >= 8; n -= 8, p += 8) {
    uint32_t lo = load_le32(p) ^ c, hi = load_le32(p + 4);
    c = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^
        kTables[4][lo >> 24] ^ kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^
        kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
  }
  for (; n > 0; --n, ++p) c = (c >> 8) ^ kTables[0][(c ^ *p) & 0xff];
  return c ^ 0xFFFFFFFFu;
}

uint32_t masked_crc32c(std::span<const uint8_t> data) {
  uint32_t c = crc32c(data);
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

std::vector<RecordSpan> parse_tfrecord_index(std::string_view text, int64_t file_size,
                                             const std::string& name) {
  std::vector<RecordSpan> out;
  IndexNumbers numbers(text, name, "offset size");
  int64_t values[2];
  int have = 0;
  int value_line = 1;
  int64_t v;
  int line;
  while (numbers.next(&v, &line)) {
    if (have == 0) value_line = line;
    values[have++] = v;
    if (have == 2) {
      have = 0;
      RecordSpan r{values[0], values[1]};
      if (r.size < kTFRecordOverhead || r.offset > file_size || r.size > file_size - r.offset) {
        throw IOError(make_string("index '", name, "' line ", value_line, ": record at offset ",
                                  r.offset, " of ", r.size,
                                  " bytes does not fit a TFRecord in the ", file_size,
                                  "-byte data file (stale or wrong index?)"));
      }
      out.push_back(r);
    }
  }
  if (have != 0) {
    throw IOError(make_string("index '", name, "' line ", value_line,
                              ": an offset without its size (truncated index?)"));
  }
  return out;
}

std::span<const uint8_t> tfrecord_payload(std::span<const uint8_t> record, bool check_crc,
                                          int64_t offset) {
  if (record.size() < static_cast<size_t>(kTFRecordOverhead)) {
    throw IOError(make_string("TFRecord at offset ", offset, ": ", record.size(),
                              " bytes, shorter than the 16-byte framing"));
  }
  uint64_t length = load_le64(record.data());
  if (check_crc && load_le32(record.data() + 8) != masked_crc32c(record.first(8))) {
    throw IOError(make_string("TFRecord at offset ", offset, ": the length's CRC does not match"));
  }
  if (length > record.size() - kTFRecordOverhead) {
    throw IOError(make_string("TFRecord at offset ", offset, ": length ", length,
                              " exceeds the record's ", record.size(),
                              " bytes given by the index (stale or wrong index, or a corrupt "
                              "length)"));
  }
  auto payload = record.subspan(12, static_cast<size_t>(length));
  if (check_crc && load_le32(record.data() + 12 + length) != masked_crc32c(payload)) {
    throw IOError(make_string("TFRecord at offset ", offset,
                              ": the data's CRC does not match "
                              "(corrupt record)"));
  }
  return payload;
}

}  // namespace sluice
