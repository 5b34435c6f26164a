#pragma once
// The data files of an indexed record reader (readers.tfrecord, readers.mxnet): opened once,
// each sized by fstat, read at an offset with pread (never mmap: a file truncated while mapped
// raises SIGBUS). Errors are IOError naming the file and the offset.
//
// Thread safety: open() is called once, before any read; read() may then run on several threads
// at once.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice {

class RecordFiles {
 public:
  RecordFiles() = default;
  ~RecordFiles();
  RecordFiles(const RecordFiles&) = delete;
  RecordFiles& operator=(const RecordFiles&) = delete;

  // Opens every path (regular files only); IOError names the first that cannot be opened.
  void open(std::vector<std::string> paths);

  size_t count() const { return paths_.size(); }
  const std::string& path(size_t file) const { return paths_[file]; }
  int64_t size(size_t file) const { return sizes_[file]; }

  // Reads exactly `n` bytes at `offset` of `file` into dst; IOError when the file is shorter
  // (truncated since it was opened) or the read fails.
  void read(size_t file, int64_t offset, int64_t n, void* dst) const;

  // Asks the kernel to read the range ahead (posix_fadvise WILLNEED); errors are ignored.
  void read_ahead(size_t file, int64_t offset, int64_t n) const noexcept;

 private:
  std::vector<std::string> paths_;
  std::vector<int64_t> sizes_;
  std::vector<int> fds_;
};

}  // namespace sluice
