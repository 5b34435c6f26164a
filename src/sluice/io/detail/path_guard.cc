#include "sluice/io/detail/path_guard.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "sluice/core/error.h"

namespace sluice::io_detail {

std::string strip_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return {};
  return buf;
}

std::string canonical_directory(const std::string& dir, std::string_view what) {
  SLUICE_CHECK(!dir.empty(), InvalidArgument, what, " is an empty path");
  std::string canonical = real_path(dir);
  if (canonical.empty()) {
    int err = errno;
    throw IOError(make_string(what, " '", dir, "' cannot be opened: ", std::strerror(err)));
  }
  struct stat st;
  if (::stat(canonical.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw InvalidArgument(make_string(what, " '", dir, "' is not a directory"));
  }
  return canonical;
}

bool is_within(std::string_view resolved, std::string_view canonical_root) {
  if (canonical_root == "/") return !resolved.empty() && resolved[0] == '/';
  if (resolved.size() < canonical_root.size()) return false;
  if (resolved.substr(0, canonical_root.size()) != canonical_root) return false;
  return resolved.size() == canonical_root.size() || resolved[canonical_root.size()] == '/';
}

std::string lexical_problem(std::string_view entry, bool allow_outside) {
  if (entry.empty()) return "the path is empty";
  for (char c : entry) {
    if (c == '\0') return "the path contains a NUL character";
    if (c == '\n' || c == '\r') return "the path contains a line break";
  }
  if (allow_outside) return {};
  if (entry[0] == '/') return "absolute paths are not allowed (the entry must lie inside the root)";
  // Depth below the root after each component; `..` at depth 0 leaves the root.
  int64_t depth = 0;
  size_t pos = 0;
  while (pos <= entry.size()) {
    size_t end = entry.find('/', pos);
    if (end == std::string_view::npos) end = entry.size();
    std::string_view part = entry.substr(pos, end - pos);
    if (part == "..") {
      if (--depth < 0) return "its '..' components climb above the root";
    } else if (!part.empty() && part != ".") {
      ++depth;
    }
    pos = end + 1;
  }
  return {};
}

ContainmentChecker::ContainmentChecker(std::string root, std::string canonical_root)
    : root_(std::move(root)), canonical_root_(std::move(canonical_root)) {}

bool ContainmentChecker::directory_inside(const std::string& dir) {
  // The root itself (and anything lexically above it, which lexical_problem has excluded).
  if (dir.size() <= root_.size()) return true;
  if (auto it = dir_inside_.find(dir); it != dir_inside_.end()) return it->second;
  bool inside;
  std::string resolved = real_path(dir);
  if (!resolved.empty()) {
    inside = is_within(resolved, canonical_root_);
  } else {
    // Missing (or unreadable) directory: nothing below it can be opened now; whatever part of
    // the chain exists must still be inside.
    size_t slash = dir.rfind('/');
    inside = slash == std::string::npos || directory_inside(dir.substr(0, slash));
  }
  dir_inside_.emplace(dir, inside);
  return inside;
}

std::string ContainmentChecker::folder_problem(const std::string& dir) {
  if (dir.empty() || directory_inside(dir)) return {};
  return make_string("its folder resolves outside the root '", canonical_root_,
                     "' (through a symlink)");
}

std::string ContainmentChecker::link_problem(const std::string& full_path) const {
  std::string target = real_path(full_path);
  if (target.empty()) {
    return make_string("it is a symlink whose target cannot be resolved (", std::strerror(errno),
                       "), so it cannot be checked to stay inside the root");
  }
  if (!is_within(target, canonical_root_)) {
    return make_string("it is a symlink to '", target, "', outside the root '", canonical_root_,
                       "'");
  }
  return {};
}

std::string ContainmentChecker::problem(const std::string& full_path) {
  size_t slash = full_path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    std::string p = folder_problem(full_path.substr(0, slash));
    if (!p.empty()) return p;
  }
  struct stat st;
  if (::lstat(full_path.c_str(), &st) != 0) return {};  // missing: reading it will say so
  if (!S_ISLNK(st.st_mode)) return {};
  return link_problem(full_path);
}

std::optional<std::vector<std::string>> ContainmentChecker::symlinks_in(const std::string& dir) {
  DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (d == nullptr) return std::nullopt;
  std::vector<std::string> links;
  for (;;) {
    errno = 0;
    const struct dirent* de = ::readdir(d);
    if (de == nullptr) {
      if (errno != 0) {
        // A partial listing could miss a symlink: let the caller check entry by entry.
        ::closedir(d);
        return std::nullopt;
      }
      break;
    }
    bool link = de->d_type == DT_LNK;
    if (de->d_type == DT_UNKNOWN) {
      struct stat st;
      link =
          ::fstatat(::dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
    }
    if (link) links.emplace_back(de->d_name);
  }
  ::closedir(d);
  std::sort(links.begin(), links.end());  // callers binary-search it
  return links;
}

}  // namespace sluice::io_detail
