#include "sluice/io/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sluice/core/error.h"
#include "sluice/memory/buffer.h"

namespace sluice {
namespace {

std::string errno_text(int err) {
  switch (err) {
    case ENOENT:
      return "the file does not exist";
    case EACCES:
    case EPERM:
      return "permission denied";
    case EISDIR:
      return "is a directory";
    default: {
      char buf[256];
      // GNU strerror_r: returns a pointer to the message, which need not be `buf`.
      return strerror_r(err, buf, sizeof(buf));
    }
  }
}

const char* file_type_name(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw IOError(make_string("cannot read '", path, "': ", what));
}

}  // namespace

ReadableFile::ReadableFile(std::string path, size_t max_size) : path_(std::move(path)) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever. It has no
  // effect on reads of regular files, which are all we accept.
  do {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) fail(path_, errno_text(errno));

  struct stat st;
  if (::fstat(fd_, &st) != 0) {
    int err = errno;
    ::close(fd_);
    fd_ = -1;
    fail(path_, make_string("fstat failed: ", errno_text(err)));
  }
  const char* bad_type = nullptr;
  if (S_ISDIR(st.st_mode)) {
    bad_type = "is a directory";
  } else if (!S_ISREG(st.st_mode)) {
    bad_type = file_type_name(st.st_mode);
  }
  if (bad_type == nullptr && static_cast<uint64_t>(st.st_size) > max_size) {
    ::close(fd_);
    fd_ = -1;
    fail(path_, make_string("the file is ", st.st_size, " bytes, more than the limit of ", max_size,
                            " bytes"));
  }
  if (bad_type != nullptr) {
    ::close(fd_);
    fd_ = -1;
    fail(path_, make_string(bad_type, ", expected a regular file"));
  }
  size_ = static_cast<size_t>(st.st_size);
}

ReadableFile::~ReadableFile() {
  if (fd_ >= 0) ::close(fd_);  // errors on close of a read-only fd carry no information
}

void ReadableFile::read_all(void* dst) const {
  auto* out = static_cast<uint8_t*>(dst);
  size_t done = 0;
  while (done < size_) {
    // Linux transfers at most 0x7ffff000 bytes per call; larger requests return short reads.
    ssize_t n = ::pread(fd_, out + done, size_ - done, static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path_, make_string("read failed at byte ", done, ": ", errno_text(errno)));
    }
    if (n == 0) {
      fail(path_, make_string("the file changed while it was being read: fstat reported ", size_,
                              " bytes but it ended after ", done, " bytes (truncated?)"));
    }
    done += static_cast<size_t>(n);
  }
  // A file still being written would otherwise be returned as a silently cut prefix: probe one
  // byte past the end (one extra syscall, small against decoding the file).
  uint8_t probe;
  ssize_t n;
  do {
    n = ::pread(fd_, &probe, 1, static_cast<off_t>(size_));
  } while (n < 0 && errno == EINTR);
  if (n < 0) fail(path_, make_string("read failed at byte ", size_, ": ", errno_text(errno)));
  if (n > 0) {
    fail(path_, make_string("the file changed while it was being read: fstat reported ", size_,
                            " bytes but it is longer now (still being written?)"));
  }
}

void ReadableFile::read_at(uint64_t offset, void* dst, size_t n) const {
  auto* out = static_cast<uint8_t*>(dst);
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      fail(path_, make_string("read failed at byte ", offset + done, ": ", errno_text(errno)));
    }
    if (r == 0) {
      fail(path_, make_string("the file ends at byte ", offset + done, " but ", n - done,
                              " more bytes were expected there (truncated?)"));
    }
    done += static_cast<size_t>(r);
  }
}

size_t read_file(const std::string& path, std::vector<uint8_t>& out, size_t max_size) {
  ReadableFile file(path, max_size);
  out.resize(file.size());
  file.read_all(out.data());
  return file.size();
}

size_t read_file(const std::string& path, Buffer& out, size_t max_size) {
  SLUICE_CHECK(out.kind() != MemoryKind::kDevice, InvalidArgument, "cannot read '", path,
               "' into a device buffer: read into host or pinned memory and copy");
  ReadableFile file(path, max_size);
  out.resize(file.size());
  file.read_all(out.data());
  return file.size();
}

void read_ahead(const std::string& path) noexcept {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return;
  // Length 0 = to the end of the file. WILLNEED queues the reads and returns.
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
  ::close(fd);
}

void read_ahead(std::span<const std::string> paths) noexcept {
  for (const std::string& p : paths) read_ahead(p);
}

}  // namespace sluice
