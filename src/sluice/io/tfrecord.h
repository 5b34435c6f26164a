#pragma once
// TFRecord files: the record framing and DALI's index files.
//
// A record is  uint64 length | uint32 masked_crc32c(length) | payload[length] |
// uint32 masked_crc32c(payload), little-endian, as TensorFlow's RecordWriter writes it. An index
// file (DALI's tfrecord2idx) has one line "offset size" per record, size covering the framing.
// Errors: IOError naming the index file and line, or the record's offset.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sluice {

inline constexpr int64_t kTFRecordOverhead = 16;  // length, its CRC, the payload's CRC

// CRC-32C (Castagnoli) of `data`, and TensorFlow's masked form of it.
uint32_t crc32c(std::span<const uint8_t> data);
uint32_t masked_crc32c(std::span<const uint8_t> data);

struct RecordSpan {
  int64_t offset = 0;
  int64_t size = 0;
};

// Parses the text of an index: pairs of non-negative decimal integers "offset size" separated
// by blanks and newlines. Each record must lie inside a file of `file_size` bytes and be at
// least kTFRecordOverhead bytes. `name` (the index path) is used in errors, with the line.
std::vector<RecordSpan> parse_tfrecord_index(std::string_view text, int64_t file_size,
                                             const std::string& name);

// The payload of one framed record (`record`: the bytes the index gives, starting at the
// length). The length must fit in `record`; with `check_crc` both masked CRC-32Cs must match.
// IOError says what is wrong and where (byte offset `offset` of the record in its file).
std::span<const uint8_t> tfrecord_payload(std::span<const uint8_t> record, bool check_crc,
                                          int64_t offset);

}  // namespace sluice
