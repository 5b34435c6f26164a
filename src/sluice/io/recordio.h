#pragma once
// MXNet RecordIO files (dmlc-core's recordio) holding MXNet image records (IRHeader + data),
// and their .idx index, as readers.mxnet reads them.
//
// A record is one or more parts: uint32 magic 0xced7230a | uint32 (cflag << 29 | length) |
// length bytes | zero padding to 4 bytes. cflag 0 is a whole record; 1, 2..., 3 are the first,
// middle and last parts of one the writer cut where the magic number appeared in the data (the
// magic is put back between parts). The joined payload is IRHeader {uint32 flag; float label;
// uint64 id[2]} followed, when flag > 0, by `flag` float labels, then the data.
// Errors: IOError naming the index line, or the record's offset and what is wrong.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

inline constexpr uint32_t kRecordIOMagic = 0xced7230a;
inline constexpr size_t kIRHeaderSize = 24;

// Where a record lies: it starts at `offset` of file `file` and takes `size` bytes, possibly
// running on into the next files (the index addresses the files as one concatenation).
struct RecordIOSpan {
  uint32_t file = 0;
  int64_t offset = 0;
  int64_t size = 0;
};

// The records of an .idx text (lines "key offset", blank-separated) over data files of
// `file_sizes`, as DALI takes them: offsets sorted, each record reaching to the next offset
// (the last to the end of the last file), records of size 0 dropped. An offset past the end of
// the data is an error naming `name` and the line.
std::vector<RecordIOSpan> parse_recordio_index(std::string_view text,
                                               const std::vector<int64_t>& file_sizes,
                                               const std::string& name);

struct MXNetRecord {
  std::vector<float> labels;      // [label] when flag == 0, else the flag labels
  std::span<const uint8_t> data;  // into the record's bytes, or into the scratch buffer
  uint64_t id = 0;
};

// Parses one record from `bytes` (which may hold padding or more after it). Multi-part records
// are joined into `scratch`. `offset` names the record in errors.
MXNetRecord parse_mxnet_record(std::span<const uint8_t> bytes, std::vector<uint8_t>& scratch,
                               int64_t offset);

}  // namespace sluice
