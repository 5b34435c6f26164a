#pragma once
// Walking the members of a tar archive (ustar, GNU long names, pax path/size records) through a
// bounded reader, and a shard file read with pread.
//
// Every header is checked before it is used: the checksum, the octal or base-256 size, and that
// the member's data lies inside the file. Bad input is an IOError naming the archive and the
// byte offset of the header ("'a.tar': corrupted tar header at offset 1536: bad checksum");
// nothing is allocated beyond the limits below, and the walk always moves forward, so a hostile
// archive can neither crash nor loop.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace sluice {

inline constexpr int64_t kTarBlockSize = 512;
// Longest name a GNU 'L' record or a pax 'path' may give, and the largest pax header read.
inline constexpr int64_t kTarMaxLongName = 64 * 1024;
inline constexpr int64_t kTarMaxPaxHeader = 1024 * 1024;

struct TarMember {
  std::string name;           // the full path: pax path, GNU long name, or ustar prefix/name
  int64_t header_offset = 0;  // of the member's own header (after any long-name records)
  int64_t data_offset = 0;    // of its first data byte (header_offset + 512)
  int64_t size = 0;           // data bytes
  char type = '0';            // the ustar typeflag ('0' and '\0' are regular files)

  // Regular files: '0', '\0' and contiguous files ('7'), as tar itself extracts them.
  bool is_file() const { return type == '0' || type == '\0' || type == '7'; }
};

// Reads up to `n` bytes at `offset` into `dst`; returns the number read (fewer only at the end).
using TarReadAt = std::function<size_t(int64_t offset, void* dst, size_t n)>;

// Calls `on_member` for every member in archive order (directories and links included; pax and
// GNU long-name records are consumed, not reported). Stops at the first all-zero block or at the
// end of the data. `archive` names the archive in errors.
void scan_tar(const TarReadAt& read, int64_t file_size, const std::string& archive,
              const std::function<void(const TarMember&)>& on_member);

class S3Client;

// A regular file opened for positional reads (no mmap, see read_file.h); closed on destruction.
// An s3:// URI is sized with a HEAD request and read with ranged GETs.
// Thread safety: read_exact() uses pread only, so threads may share one object.
class PreadFile {
 public:
  explicit PreadFile(std::string path);
  ~PreadFile();
  PreadFile(const PreadFile&) = delete;
  PreadFile& operator=(const PreadFile&) = delete;

  const std::string& path() const { return path_; }
  int64_t size() const { return size_; }
  // Up to `n` bytes at `offset`; fewer only at the end of the file.
  size_t read_at(int64_t offset, void* dst, size_t n) const;
  // Exactly `n` bytes at `offset`, or an IOError naming the file, the offset and `what`.
  void read_exact(int64_t offset, void* dst, size_t n, const std::string& what) const;
  // Asks the kernel to read [offset, offset + n) ahead (posix_fadvise WILLNEED); errors ignored.
  void advise(int64_t offset, int64_t n) const noexcept;

 private:
  std::string path_;
  int64_t size_ = 0;
  int fd_ = -1;
  std::shared_ptr<S3Client> s3_;  // an s3:// URI
};

}  // namespace sluice
