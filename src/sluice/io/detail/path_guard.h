#pragma once
// Internal: keeping dataset entries inside their root directory (see file_dataset.h, "Path
// safety"). File lists and directory trees are untrusted input (reliability.md §5): an entry must
// not reach outside the root through an absolute path, a `..` component or a symlink.

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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

// Checks on disk that root-joined entries do not resolve outside the root through a symlink, in
// the final component or in any folder above it. Folders already resolved are cached. An entry
// that does not exist (yet) passes: reading it reports the error, and the deepest existing
// ancestor must still be inside.
//
// Two ways to check the entries of one folder: problem() per entry (one lstat each), or
// folder_problem() once plus symlinks_in() (one readdir for the whole folder) and link_problem()
// for the entries that are symlinks. The second is much cheaper for many entries of one folder,
// notably on network file systems where each lstat is a round trip.
// Not thread-safe (the cache): use one checker per thread.
class ContainmentChecker {
 public:
  // `root`: the root as spelled by the user, without trailing slash ("" = the working
  // directory); `canonical_root`: its realpath.
  ContainmentChecker(std::string root, std::string canonical_root);

  // "" when `full_path` (root + "/" + entry) stays inside, otherwise the reason.
  std::string problem(const std::string& full_path);

  // "" when the folder `dir` (a prefix of root-joined entries) resolves inside, else the reason.
  std::string folder_problem(const std::string& dir);

  // The names of the symlinks directly in `dir` ("" = the working directory): readdir, with an
  // lstat only where the file system does not report the entry type. nullopt when `dir` cannot
  // be read completely (then check its entries with problem()). Sorted.
  static std::optional<std::vector<std::string>> symlinks_in(const std::string& dir);

  // For an entry known to be a symlink: "" when its target resolves inside, else the reason.
  std::string link_problem(const std::string& full_path) const;

 private:
  bool directory_inside(const std::string& dir);

  std::string root_;
  std::string canonical_root_;
  std::unordered_map<std::string, bool> dir_inside_;  // directory path -> resolves inside
};

}  // namespace sluice::io_detail
