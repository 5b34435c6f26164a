#pragma once
// Reading whole files into caller buffers, and read-ahead hints.
//
// Files are read with open / fstat / pread (never mmap: a file truncated by another process while
// mapped raises SIGBUS in the reader, see reliability.md "Files changing under the loader").
// Every failure is a sluice::IOError whose message starts with "cannot read '<path>': " and says
// what is wrong: the file does not exist, permission denied, is a directory, is not a regular
// file, is larger than the size limit, or changed size while it was being read.
//
// Thread safety: the free functions are reentrant; concurrent calls need distinct output buffers.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sluice {

class Buffer;

// Default limit on the size of one file (1 GiB): a guard against reading a huge file by mistake.
inline constexpr size_t kDefaultMaxFileSize = size_t{1} << 30;

// An open, regular file and the size fstat reported when it was opened.
//
// The constructor opens (O_NONBLOCK, so a FIFO cannot block it) and fstats the file, and rejects
// directories, non-regular files and files above `max_size`. read_all() then reads exactly size()
// bytes with pread, retrying on EINTR and short reads, and fails if the file turns out shorter
// (truncated after open) or longer (grew after open) than size(). Splitting open from read lets a
// caller size its buffer first, and lets tests change the file in between.
//
// Thread safety: read_all() uses pread only, so several threads may read one ReadableFile at
// once; the object itself must outlive them. Closing happens in the destructor.
class ReadableFile {
 public:
  explicit ReadableFile(std::string path, size_t max_size = kDefaultMaxFileSize);
  ~ReadableFile();
  ReadableFile(const ReadableFile&) = delete;
  ReadableFile& operator=(const ReadableFile&) = delete;

  const std::string& path() const { return path_; }
  size_t size() const { return size_; }

  // Reads the whole file (size() bytes) into dst, which must hold size() bytes.
  void read_all(void* dst) const;
  // Reads `n` bytes at `offset` into dst (a part of the file, e.g. one region of an array);
  // fails if the file ends before offset + n.
  void read_at(uint64_t offset, void* dst, size_t n) const;

 private:
  std::string path_;
  size_t size_ = 0;
  int fd_ = -1;
};

// Reads the whole file at `path` into `out`, which is resized to the file size (its capacity is
// reused across calls). Returns the size.
size_t read_file(const std::string& path, std::vector<uint8_t>& out,
                 size_t max_size = kDefaultMaxFileSize);

// Same, into a host or pinned Buffer (InvalidArgument for a device buffer).
size_t read_file(const std::string& path, Buffer& out, size_t max_size = kDefaultMaxFileSize);

// Read-ahead: asks the kernel to start reading `path` into the page cache
// (posix_fadvise(POSIX_FADV_WILLNEED)) so that a later read_file finds it there. Costs an open and
// a close and does not wait for the data; every error (missing file, ...) is ignored, because the
// real read reports it.
void read_ahead(const std::string& path) noexcept;

// Read-ahead for several paths, e.g. those of the next batch.
void read_ahead(std::span<const std::string> paths) noexcept;

}  // namespace sluice
