#include "sluice/io/record_files.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sluice/core/error.h"
#include "sluice/io/s3_client.h"

namespace sluice {
namespace {

std::string strerror_text(int err) {
  char buf[256];
  return strerror_r(err, buf, sizeof(buf));  // GNU: returns the message, maybe not `buf`
}

int open_regular(const std::string& path, int64_t* size) {
  int fd;
  do {
    // O_NONBLOCK: a FIFO must not block the open; it is refused below.
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) throw IOError(make_string("cannot read '", path, "': ", strerror_text(errno)));
  struct stat st;
  const char* bad = nullptr;
  int err = 0;
  if (::fstat(fd, &st) != 0) {
    err = errno;
    bad = "fstat failed: ";
  } else if (!S_ISREG(st.st_mode)) {
    bad = "not a regular file";
  }
  if (bad != nullptr) {
    ::close(fd);
    throw IOError(make_string("cannot read '", path, "': ", bad, err ? strerror_text(err) : ""));
  }
  if (size != nullptr) *size = static_cast<int64_t>(st.st_size);
  return fd;
}

}  // namespace

struct RecordFiles::Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);  // errors on close of a read-only fd carry no information
  }
};

RecordFiles::~RecordFiles() = default;

void RecordFiles::open(std::vector<std::string> paths, size_t max_open) {
  if (max_open == 0) {
    struct rlimit rl;
    rlim_t limit = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
    max_open = static_cast<size_t>(std::clamp<rlim_t>(limit / 4, 16, 4096));
  }
  max_open_ = max_open;
  MutexLock lock(mu_);  // uncontended: no read runs before open() returns
  open_.assign(paths.size(), nullptr);
  for (size_t f = 0; f < paths.size(); ++f) {
    int64_t size = 0;
    if (is_s3_uri(paths[f])) {
      if (!s3_) s3_ = S3Client::shared();
      sizes_.push_back(static_cast<int64_t>(s3_->size(S3Uri::parse(paths[f]))));
      continue;
    }
    auto fd = std::make_shared<Fd>();
    fd->fd = open_regular(paths[f], &size);
    sizes_.push_back(size);
    if (opened_.size() < max_open_) {  // keep the first ones open, the others are opened later
      open_[f] = std::move(fd);
      opened_.push_back(f);
    }
  }
  paths_ = std::move(paths);
  if (s3_) prefetcher_ = std::make_unique<S3Prefetcher>(s3_, 32, size_t{1} << 31);
}

std::shared_ptr<RecordFiles::Fd> RecordFiles::fd(size_t file) const {
  MutexLock lock(mu_);
  if (open_[file]) return open_[file];
  if (opened_.size() >= max_open_) {  // the oldest closes when its last read ends
    open_[opened_.front()].reset();
    opened_.erase(opened_.begin());
  }
  auto fd = std::make_shared<Fd>();
  fd->fd = open_regular(paths_[file], nullptr);
  open_[file] = fd;
  opened_.push_back(file);
  return fd;
}

void RecordFiles::read(size_t file, int64_t offset, int64_t n, void* dst) const {
  if (is_s3_uri(paths_[file])) {
    std::shared_ptr<S3Prefetcher::Fetch> ahead;
    {
      MutexLock lock(ahead_mu_);
      auto it = ahead_.find({file, offset, n});
      if (it != ahead_.end()) {
        ahead = std::move(it->second);
        ahead_.erase(it);
      }
    }
    std::vector<uint8_t> bytes;
    if (ahead) {
      bytes = prefetcher_->wait(*ahead);
    } else {
      s3_->get(S3Uri::parse(paths_[file]), bytes, static_cast<size_t>(n),
               static_cast<uint64_t>(offset), n);
    }
    if (static_cast<int64_t>(bytes.size()) != n) {
      throw IOError(make_string("cannot read '", paths_[file], "': it ends at offset ",
                                offset + static_cast<int64_t>(bytes.size()),
                                ", inside the record at offset ", offset, " of ", n,
                                " bytes (truncated?)"));
    }
    if (n > 0) std::memcpy(dst, bytes.data(), bytes.size());
    return;
  }
  std::shared_ptr<Fd> h = fd(file);
  auto* out = static_cast<uint8_t*>(dst);
  int64_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(h->fd, out + done, static_cast<size_t>(n - done),
                        static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw IOError(make_string("cannot read '", paths_[file], "' at offset ", offset + done, ": ",
                                strerror_text(errno)));
    }
    if (r == 0) {
      throw IOError(make_string("cannot read '", paths_[file], "': it ends at offset ",
                                offset + done, ", inside the record at offset ", offset, " of ", n,
                                " bytes (truncated?)"));
    }
    done += r;
  }
}

void RecordFiles::read_ahead(size_t file, int64_t offset, int64_t n) const noexcept {
  try {
    if (is_s3_uri(paths_[file])) {
      MutexLock lock(ahead_mu_);
      if (ahead_.size() > 65536) ahead_.clear();  // ranges never read (a changed plan)
      auto& f = ahead_[{file, offset, n}];
      if (!f) f = prefetcher_->fetch(paths_[file], static_cast<uint64_t>(offset), n);
      return;
    }
    std::shared_ptr<Fd> h = fd(file);
    (void)::posix_fadvise(h->fd, static_cast<off_t>(offset), static_cast<off_t>(n),
                          POSIX_FADV_WILLNEED);
  } catch (...) {  // the real read reports the error
  }
}

}  // namespace sluice
