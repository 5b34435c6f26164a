#pragma once
// The data files of an indexed record reader (readers.tfrecord, readers.mxnet): each checked
// and sized once, read at an offset with pread (never mmap: a file truncated while mapped raises
// SIGBUS). Errors are IOError naming the file and the offset.
//
// Files are opened when first read and kept open, up to a quarter of the process's descriptor
// limit (ImageNet in TFRecord is over 1000 files, the usual soft limit 1024); beyond it an open
// file is closed (once its reads end) for each new one.
//
// Paths may be s3:// URIs (io/s3_client.h): such a file is sized with a HEAD request and each
// read is a ranged GET; read_ahead() starts that GET (many in flight) for a later read().
//
// Thread safety: open() is called once, before any read; read() and read_ahead() may then run
// on several threads at once.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sluice/core/mutex.h"
#include "sluice/io/s3_client.h"

namespace sluice {

class RecordFiles {
 public:
  RecordFiles() = default;
  ~RecordFiles();
  RecordFiles(const RecordFiles&) = delete;
  RecordFiles& operator=(const RecordFiles&) = delete;

  // Checks every path (regular files only) and notes its size; IOError names the first that
  // cannot be opened. `max_open`: the most files kept open (0: from the descriptor limit).
  void open(std::vector<std::string> paths, size_t max_open = 0);

  size_t count() const { return paths_.size(); }
  const std::string& path(size_t file) const { return paths_[file]; }
  int64_t size(size_t file) const { return sizes_[file]; }
  // Whether some file is in object storage (then read_ahead() is worth calling every batch).
  bool remote() const { return s3_ != nullptr; }

  // Reads exactly `n` bytes at `offset` of `file` into dst; IOError when the file is shorter
  // (truncated since it was opened) or the read fails.
  void read(size_t file, int64_t offset, int64_t n, void* dst) const;

  // Asks the kernel to read the range ahead (posix_fadvise WILLNEED); errors are ignored.
  void read_ahead(size_t file, int64_t offset, int64_t n) const noexcept;

 private:
  struct Fd;
  std::shared_ptr<Fd> fd(size_t file) const SLUICE_EXCLUDES(mu_);

  std::vector<std::string> paths_;
  std::vector<int64_t> sizes_;
  std::shared_ptr<S3Client> s3_;  // set when some path is an s3:// URI
  std::unique_ptr<S3Prefetcher> prefetcher_;
  struct Range {
    size_t file;
    int64_t offset, n;
    auto operator<=>(const Range&) const = default;
  };
  mutable Mutex ahead_mu_;
  // Ranges requested ahead and not read yet.
  mutable std::map<Range, std::shared_ptr<S3Prefetcher::Fetch>> ahead_ SLUICE_GUARDED_BY(ahead_mu_);
  size_t max_open_ = 0;
  mutable Mutex mu_;
  // Per file, null when closed; and the files with one open, oldest first.
  mutable std::vector<std::shared_ptr<Fd>> open_ SLUICE_GUARDED_BY(mu_);
  mutable std::vector<size_t> opened_ SLUICE_GUARDED_BY(mu_);
};

}  // namespace sluice
