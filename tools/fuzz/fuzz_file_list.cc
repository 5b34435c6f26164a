// libFuzzer target: the file-list parser of readers.file (list_file_dataset with a file_list,
// file_dataset.h mode (b)), including its path-safety checks.
//
// The input is written as the list file inside a private temporary root that holds a real
// file, a folder, a symlink that stays inside and one that leads outside, so that the
// containment checks (lstat / realpath / readdir) run against real answers. Listing runs on the
// calling thread only. A malformed list may only raise InvalidArgument (or IOError); on success
// the entries must be exactly what an independent reading of the format in file_dataset.h
// gives: one entry per non-blank, non-comment line, label = last blank-separated token, path =
// the trimmed rest, joined to the root unless absolute or an s3:// URI; and a line that the
// format rejects (a single token, a label that is not a decimal int32) must make the listing
// fail.

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_common.h"
#include "sluice/core/error.h"
#include "sluice/io/file_dataset.h"

namespace {

using namespace sluice;
using sluice::fuzz::Choices;
using sluice::fuzz::fuzz_fail;
using sluice::fuzz::fuzz_fail_unexpected;

struct Sandbox {
  std::string top;   // <tmp>/sluice-fuzz-XXXXXX, removed at exit
  std::string root;  // <tmp>/sluice-fuzz-XXXXXX/root
  std::string list;  // <tmp>/sluice-fuzz-XXXXXX/root/list.txt
};

int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
  return ::remove(path);
}

void remove_tree(const std::string& path) {
  nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

// libFuzzer leaves through _Exit (no atexit handlers, also after a crash), so each sandbox is
// named after its process and a new process removes those of processes that have ended.
void remove_stale_sandboxes(const std::string& base) {
  DIR* d = opendir(base.c_str());
  if (d == nullptr) return;
  std::vector<std::string> stale;
  while (const dirent* e = readdir(d)) {
    long pid = 0;
    char rest[32];
    if (std::sscanf(e->d_name, "sluice-fuzz-%ld-%31s", &pid, rest) == 2 && pid > 0 &&
        kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      stale.push_back(base + "/" + e->d_name);
    }
  }
  closedir(d);
  for (const auto& p : stale) remove_tree(p);
}

const Sandbox& sandbox() {
  static const Sandbox box = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string base = (access("/dev/shm", W_OK) == 0) ? "/dev/shm" : (tmp ? tmp : "/tmp");
    remove_stale_sandboxes(base);
    std::string templ = base + "/sluice-fuzz-" + std::to_string(getpid()) + "-XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) fuzz_fail("mkdtemp failed");
    Sandbox b;
    b.top = templ;
    b.root = templ + "/root";
    b.list = b.root + "/list.txt";
    bool ok = mkdir(b.root.c_str(), 0755) == 0 && mkdir((b.root + "/a").c_str(), 0755) == 0 &&
              mkdir((templ + "/outside").c_str(), 0755) == 0 &&
              symlink("a", (b.root + "/in").c_str()) == 0 &&
              symlink("../outside", (b.root + "/out").c_str()) == 0 &&
              symlink("/etc/hostname", (b.root + "/a/abs").c_str()) == 0;
    for (const char* f : {"/a/x.jpg", "/a/y.png", "/z.jpg"}) {
      int fd = open((b.root + f).c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
      ok = ok && fd >= 0;
      if (fd >= 0) close(fd);
    }
    if (!ok) fuzz_fail("could not create the sandbox under", templ.c_str());
    return b;
  }();
  return box;
}

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}
std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// The format as file_dataset.h describes it. `syntax_error`: some line is not "<path> <label>".
struct Reference {
  std::vector<FileEntry> entries;
  bool syntax_error = false;
};

Reference reference_parse(std::string_view text, const std::string& root) {
  Reference r;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    size_t cut = line.size();
    while (cut > 0 && !is_blank(line[cut - 1])) --cut;
    std::string_view label = line.substr(cut), path = trim(line.substr(0, cut));
    // A decimal int32: optional '-', then digits (leading zeros allowed), nothing else.
    const bool neg = !label.empty() && label[0] == '-';
    const std::string_view digits = neg ? label.substr(1) : label;
    bool ok = cut > 0 && !digits.empty();
    int64_t value = 0;
    for (char ch : digits) {
      ok = ok && ch >= '0' && ch <= '9';
      if (ok) value = std::min<int64_t>(value * 10 + (ch - '0'), int64_t{1} << 40);
    }
    if (neg) value = -value;
    ok = ok && value >= INT32_MIN && value <= INT32_MAX;
    if (!ok) {
      r.syntax_error = true;
      continue;
    }
    // Absolute paths and s3:// URIs are taken as given; the rest is relative to the root.
    const bool as_given = (!path.empty() && path[0] == '/') || path.substr(0, 5) == "s3://";
    std::string joined = as_given ? std::string(path) : root + "/" + std::string(path);
    r.entries.push_back({joined, static_cast<int32_t>(value)});
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Sandbox& box = sandbox();
  {
    int fd = open(box.list.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) fuzz_fail("cannot write the list file");
    for (size_t done = 0; done < size;) {
      ssize_t n = write(fd, data + done, size - done);
      if (n <= 0) fuzz_fail("cannot write the list file");
      done += static_cast<size_t>(n);
    }
    close(fd);
  }
  Choices c(data, size);
  FileDatasetOptions o;
  o.file_list = box.list;
  // The root: the list's folder (implicit), or file_root spelled with trailing slashes.
  if (c.one_in(2)) o.file_root = c.one_in(2) ? box.root : box.root + "//";
  o.allow_paths_outside_root = c.one_in(4);
  o.num_threads = 1;

  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const Reference ref = reference_parse(text, box.root);
  FileDataset ds;
  try {
    ds = list_file_dataset(o);
  } catch (const InvalidArgument& e) {
    sluice::fuzz::note_expected("list_file_dataset", e);
    return 0;
  } catch (const IOError& e) {
    sluice::fuzz::note_expected("list_file_dataset", e);
    return 0;
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("list_file_dataset", e);
  }
  if (ref.syntax_error) fuzz_fail("a list with a malformed line was accepted");
  if (ds.root != box.root) fuzz_fail("FileDataset::root is not the root as given");
  if (ds.entries.size() != ref.entries.size()) fuzz_fail("entry count differs from the format");
  for (size_t i = 0; i < ds.entries.size(); ++i) {
    if (ds.entries[i].path != ref.entries[i].path || ds.entries[i].label != ref.entries[i].label) {
      fuzz_fail("an entry differs from the format's reading:", ds.entries[i].path.c_str());
    }
    // Only a given file_root contains the entries (without it they are read as given).
    if (!o.allow_paths_outside_root && !o.file_root.empty() &&
        ds.entries[i].path.compare(0, box.root.size() + 1, box.root + "/") != 0) {
      fuzz_fail("an accepted entry lies outside the root:", ds.entries[i].path.c_str());
    }
  }
  return 0;
}
