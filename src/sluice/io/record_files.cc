#include "sluice/io/record_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sluice/core/error.h"

namespace sluice {
namespace {

std::string errno_text(int err) {
  char buf[256];
  return strerror_r(err, buf, sizeof(buf));  // GNU: returns the message, maybe not `buf`
}

}  // namespace

RecordFiles::~RecordFiles() {
  for (int fd : fds_) ::close(fd);
}

void RecordFiles::open(std::vector<std::string> paths) {
  for (const std::string& p : paths) {
    int fd;
    do {
      // O_NONBLOCK: a FIFO must not block the open; it is refused below.
      fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) throw IOError(make_string("cannot read '", p, "': ", errno_text(errno)));
    fds_.push_back(fd);
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      throw IOError(make_string("cannot read '", p, "': fstat failed: ", errno_text(errno)));
    }
    if (!S_ISREG(st.st_mode)) {
      throw IOError(make_string("cannot read '", p, "': not a regular file"));
    }
    sizes_.push_back(static_cast<int64_t>(st.st_size));
  }
  paths_ = std::move(paths);
}

void RecordFiles::read(size_t file, int64_t offset, int64_t n, void* dst) const {
  auto* out = static_cast<uint8_t*>(dst);
  int64_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fds_[file], out + done, static_cast<size_t>(n - done),
                        static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw IOError(make_string("cannot read '", paths_[file], "' at offset ", offset + done, ": ",
                                errno_text(errno)));
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
  (void)::posix_fadvise(fds_[file], static_cast<off_t>(offset), static_cast<off_t>(n),
                        POSIX_FADV_WILLNEED);
}

}  // namespace sluice
