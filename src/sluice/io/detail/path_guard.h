#pragma once
// Internal: keeping dataset entries inside their root directory (see file_dataset.h, "Path
// safety"). File lists and directory trees are untrusted input (reliability.md §5): an entry must
// not reach outside the root through an absolute path, a `..` component or a symlink.

#include <string>
#include <string_view>
#include <unordered_map>

namespace sluice::io_detail {

// `path` without trailing slashes ("/" stays "/"; "" stays "").
std::string strip_trailing_slashes(std::string path);

// realpath() of a directory. IOError naming `what` and `dir` if it cannot be resolved or is not a
// directory.
std::string canonical_directory(const std::string& dir, std::string_view what);

// realpath() of `path`, or "" (with errno set) when it cannot be resolved.
std::string real_path(const std::string& path);

// True when the canonical path `resolved` is `canonical_root` or lies below it.
bool is_within(std::string_view resolved, std::string_view canonical_root);

// Checks the spelling of one entry of a file list or of `files`. Returns "" when acceptable,
// otherwise why not. Always rejected: an empty entry, and NUL, newline or carriage-return
// characters (they cannot be opened or break line-based lists and logs). Rejected unless
// `allow_outside`: absolute paths and `..` components that climb above the root.
std::string lexical_problem(std::string_view entry, bool allow_outside);

// Checks on disk that a root-joined entry does not resolve outside the root through a symlink,
// in the final component or in any directory above it. Directories already resolved are cached,
// so checking the entries of one folder costs one lstat each. An entry that does not exist (yet)
// passes: reading it reports the error, and the deepest existing ancestor must still be inside.
// Not thread-safe (the cache): use one checker per thread.
class ContainmentChecker {
 public:
  // `root`: the root as spelled by the user, without trailing slash; `canonical_root`: its
  // realpath.
  ContainmentChecker(std::string root, std::string canonical_root);

  // "" when `full_path` (root + "/" + entry) stays inside, otherwise the reason.
  std::string problem(const std::string& full_path);

 private:
  bool directory_inside(const std::string& dir);

  std::string root_;
  std::string canonical_root_;
  std::unordered_map<std::string, bool> dir_inside_;  // directory path -> resolves inside
};

}  // namespace sluice::io_detail
