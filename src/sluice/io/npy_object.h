#pragma once
// Reading .npy arrays from object storage (s3://, s3_client.h), the reads of many objects in
// flight on an S3Prefetcher: either the whole object in one GET (header and data in one round
// trip), or, for a region of interest, a first ranged GET for the header (a second one only for
// a header longer than kNpyFirstRange) and then only the byte ranges of the box, planned and
// merged as on disk (npy_box_ranges, read_npy_box).
//
// Errors name the object ("s3://bucket/key"): DecodeError for a bad header or an object shorter
// than its header says (the messages of a local file, npy_file.h), IOError for one that cannot
// be read or that changed between the reads.
//
// Thread safety: NpyObjectReader::start may be called from several threads; one NpyObject is
// used by one thread at a time (a copy is another user of the reads started: they are shared).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sluice/io/npy_file.h"
#include "sluice/io/s3_client.h"

namespace sluice {

// The bytes asked for first when only the header is wanted: numpy writes headers of 128 bytes
// and a few more for many dimensions.
inline constexpr size_t kNpyFirstRange = 4096;
// Runs closer than this are read in one range: a request costs more than such a gap's bytes.
inline constexpr size_t kNpyObjectMaxGap = size_t{256} << 10;

// The header of an object and the object's size (what cache_header_information keeps).
struct NpyObjectHeader {
  NpyHeader header;
  uint64_t object_size = 0;
};

class NpyObject {
 public:
  const std::string& uri() const { return uri_; }
  // Waits for the first read and parses the header (once).
  const NpyObjectHeader& header();
  // Whether the header is known without waiting (given to NpyObjectReader::start).
  bool has_header() const { return header_.has_value(); }
  // Starts the reads of the box [anchor, anchor + shape) of the stored array (npy_layout's
  // storage order), unless those of the same box are started; a whole object needs none.
  void start_box(std::span<const int64_t> anchor, std::span<const int64_t> shape);
  // Waits for those reads and writes the box densely into `dst` (read_npy_box).
  void read_box(std::span<const int64_t> anchor, std::span<const int64_t> shape, void* dst,
                std::vector<uint8_t>& scratch);
  // The bytes its reads bring, when known without waiting: the started box's ranges, else the
  // first read once done (the whole object, or the header's range); 0 for a known header alone.
  std::optional<size_t> bytes() const;

 private:
  friend class NpyObjectReader;
  void read_at(uint64_t offset, void* dst, size_t n);

  std::string uri_;
  S3Prefetcher* prefetcher_ = nullptr;
  bool whole_ = false;
  std::shared_ptr<S3Prefetcher::Fetch> first_;  // the whole object, or its first range
  std::optional<NpyObjectHeader> header_;
  std::vector<int64_t> box_;          // the started box: anchor then shape
  std::vector<NpyByteRange> ranges_;  // the box's reads, started
  std::vector<std::shared_ptr<S3Prefetcher::Fetch>> fetches_;
  size_t next_ = 0;  // the next of ranges_ read_box consumes
};

class NpyObjectReader {
 public:
  explicit NpyObjectReader(int connections);

  // The most requests in flight at once (those asked for, within the descriptor limit).
  int connections() const { return prefetcher_.connections(); }

  // Starts reading `uri`: the whole object, or (`whole` false) its header, which is not read
  // again when `known` gives it.
  std::shared_ptr<NpyObject> start(const std::string& uri, bool whole,
                                   const std::optional<NpyObjectHeader>& known = std::nullopt);

 private:
  S3Prefetcher prefetcher_;
};

}  // namespace sluice
