#include "sluice/io/tar_archive.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/s3_client.h"

namespace sluice {
namespace {

// Offsets of the ustar header fields used here.
constexpr int kNameOff = 0, kNameLen = 100;
constexpr int kSizeOff = 124, kSizeLen = 12;
constexpr int kSumOff = 148, kSumLen = 8;
constexpr int kTypeOff = 156;
constexpr int kMagicOff = 257;
constexpr int kPrefixOff = 345, kPrefixLen = 155;
// Sizes above this are not real (and would overflow offset arithmetic).
constexpr int64_t kMaxValue = int64_t{1} << 62;

std::string field(const uint8_t* p, int n) {
  int len = 0;
  while (len < n && p[len] != 0) ++len;
  return std::string(reinterpret_cast<const char*>(p), len);
}

// An octal number padded with spaces or NULs, or GNU's base-256 (the first byte's high bit set).
std::optional<int64_t> parse_number(const uint8_t* p, int n) {
  if (p[0] & 0x80) {
    if (p[0] != 0x80) return std::nullopt;  // negative (0xFF) or malformed
    int64_t v = 0;
    for (int i = 1; i < n; ++i) {
      if (v > (kMaxValue >> 8)) return std::nullopt;
      v = (v << 8) | p[i];
    }
    return v;
  }
  int i = 0;
  while (i < n && (p[i] == ' ' || p[i] == 0)) ++i;
  int64_t v = 0;
  for (; i < n && p[i] >= '0' && p[i] <= '7'; ++i) {
    v = v * 8 + (p[i] - '0');
    if (v > kMaxValue) return std::nullopt;
  }
  for (; i < n; ++i) {
    if (p[i] != ' ' && p[i] != 0) return std::nullopt;
  }
  return v;
}

bool checksum_ok(const uint8_t* b) {
  std::optional<int64_t> want = parse_number(b + kSumOff, kSumLen);
  if (!want) return false;
  int64_t usum = 0, ssum = 0;
  for (int i = 0; i < kTarBlockSize; ++i) {
    const bool in_sum = i >= kSumOff && i < kSumOff + kSumLen;
    usum += in_sum ? ' ' : b[i];
    ssum += in_sum ? ' ' : static_cast<int8_t>(b[i]);
  }
  return *want == usum || *want == ssum;  // old tars summed signed bytes
}

bool all_zero(const uint8_t* b) {
  for (int i = 0; i < kTarBlockSize; ++i) {
    if (b[i] != 0) return false;
  }
  return true;
}

struct PaxFields {
  std::optional<std::string> path;
  std::optional<int64_t> size;
};

// Records "<len> <key>=<value>\n", where len counts the whole record.
bool parse_pax(std::string_view text, PaxFields* out) {
  size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == 0) break;  // padding
    size_t len = 0, i = pos;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      len = len * 10 + static_cast<size_t>(text[i] - '0');
      if (len > text.size()) return false;
      ++i;
    }
    if (i == pos || i >= text.size() || text[i] != ' ' || len <= i - pos + 1 ||
        len > text.size() - pos || text[pos + len - 1] != '\n') {
      return false;
    }
    std::string_view rec = text.substr(i + 1, pos + len - 1 - (i + 1));
    size_t eq = rec.find('=');
    if (eq == std::string_view::npos) return false;
    std::string_view key = rec.substr(0, eq), value = rec.substr(eq + 1);
    if (key == "path") {
      out->path = std::string(value);
    } else if (key == "size") {
      int64_t v = 0;
      if (value.empty()) return false;
      for (char c : value) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
        if (v > kMaxValue) return false;
      }
      out->size = v;
    }
    pos += len;
  }
  return true;
}

}  // namespace

void scan_tar(const TarReadAt& read, int64_t file_size, const std::string& archive,
              const std::function<void(const TarMember&)>& on_member) {
  auto corrupted = [&](int64_t at, const std::string& why) {
    return IOError(make_string("'", archive, "': corrupted tar header at offset ", at, ": ", why));
  };
  uint8_t block[kTarBlockSize];
  std::optional<std::string> long_name;
  PaxFields pax;
  int64_t pos = 0;
  while (pos < file_size) {
    if (file_size - pos < kTarBlockSize ||
        read(pos, block, kTarBlockSize) != static_cast<size_t>(kTarBlockSize)) {
      throw IOError(make_string("'", archive, "': truncated tar header at offset ", pos,
                                " (the file ends at ", file_size, ")"));
    }
    if (all_zero(block)) break;
    if (!checksum_ok(block)) throw corrupted(pos, "bad checksum");
    std::optional<int64_t> size = parse_number(block + kSizeOff, kSizeLen);
    if (!size) throw corrupted(pos, "bad size field");
    const char type = static_cast<char>(block[kTypeOff]);
    const bool is_meta = type == 'L' || type == 'K' || type == 'x' || type == 'g';
    if (!is_meta && pax.size) size = pax.size;
    const int64_t data = pos + kTarBlockSize;
    if (*size > file_size - data) {
      throw IOError(make_string("'", archive, "': truncated tar member at offset ", pos, ": ",
                                *size, " data bytes, but the file ends at ", file_size));
    }
    const int64_t next = data + (*size + kTarBlockSize - 1) / kTarBlockSize * kTarBlockSize;
    if (type == 'L' || type == 'x') {
      const int64_t limit = type == 'L' ? kTarMaxLongName : kTarMaxPaxHeader;
      if (*size > limit)
        throw corrupted(pos, make_string("extended header over ", limit, " bytes"));
      std::string text(static_cast<size_t>(*size), '\0');
      if (read(data, text.data(), text.size()) != text.size()) {
        throw IOError(make_string("'", archive, "': cannot read the tar member at offset ", pos));
      }
      if (type == 'L') {
        long_name =
            field(reinterpret_cast<const uint8_t*>(text.data()), static_cast<int>(text.size()));
      } else if (!parse_pax(text, &pax)) {
        throw corrupted(pos, "malformed pax record");
      }
    } else if (!is_meta) {
      TarMember m;
      if (pax.path) {
        m.name = *pax.path;
      } else if (long_name) {
        m.name = *long_name;
      } else {
        m.name = field(block + kNameOff, kNameLen);
        // POSIX ustar splits long paths into prefix/name; GNU's header uses those bytes otherwise.
        if (std::memcmp(block + kMagicOff, "ustar\0", 6) == 0 && block[kPrefixOff] != 0) {
          m.name = field(block + kPrefixOff, kPrefixLen) + "/" + m.name;
        }
      }
      m.header_offset = pos;
      m.data_offset = data;
      m.size = *size;
      m.type = type;
      on_member(m);
      long_name.reset();
      pax = PaxFields{};
    }
    pos = next;
  }
}

PreadFile::PreadFile(std::string path) : path_(std::move(path)) {
  if (is_s3_uri(path_)) {
    s3_ = S3Client::shared();
    size_ = static_cast<int64_t>(s3_->size(S3Uri::parse(path_)));
    return;
  }
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) {
    throw IOError(make_string("cannot open '", path_, "': ", std::strerror(errno)));
  }
  struct stat st;
  if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw IOError(make_string("cannot read '", path_, "': not a regular file"));
  }
  size_ = st.st_size;
}

PreadFile::~PreadFile() {
  if (fd_ >= 0) ::close(fd_);
}

size_t PreadFile::read_at(int64_t offset, void* dst, size_t n) const {
  if (s3_) {
    const int64_t len = std::min<int64_t>(static_cast<int64_t>(n), size_ - offset);
    if (len <= 0) return 0;
    std::vector<uint8_t> bytes;
    s3_->get(S3Uri::parse(path_), bytes, static_cast<size_t>(len), static_cast<uint64_t>(offset),
             len);
    std::memcpy(dst, bytes.data(), bytes.size());
    return bytes.size();
  }
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd_, static_cast<uint8_t*>(dst) + done, n - done,
                        static_cast<off_t>(offset + static_cast<int64_t>(done)));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      throw IOError(
          make_string("cannot read '", path_, "' at offset ", offset, ": ", std::strerror(errno)));
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  return done;
}

void PreadFile::read_exact(int64_t offset, void* dst, size_t n, const std::string& what) const {
  if (read_at(offset, dst, n) != n) {
    throw IOError(make_string("'", path_, "': ", what, " at offset ", offset, " (", n,
                              " bytes) lies past the end of the file (truncated?)"));
  }
}

void PreadFile::advise(int64_t offset, int64_t n) const noexcept {
  if (s3_) return;
  (void)::posix_fadvise(fd_, static_cast<off_t>(offset), static_cast<off_t>(n),
                        POSIX_FADV_WILLNEED);
}

}  // namespace sluice
