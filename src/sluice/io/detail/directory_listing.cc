#include "sluice/io/detail/directory_listing.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sluice/core/error.h"
#include "sluice/io/detail/path_guard.h"
#include "sluice/io/detail/run_parallel.h"

namespace sluice::io_detail {
namespace {

char ascii_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// "*" followed by plain ASCII characters: fnmatch(pattern, name, 0) is then exactly "name ends
// with the literal".
bool is_suffix_pattern(const std::string& p) {
  if (p.size() < 2 || p[0] != '*') return false;
  for (size_t i = 1; i < p.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(p[i]);
    if (c >= 0x80 || c == '*' || c == '?' || c == '[' || c == '\\') return false;
  }
  return true;
}

std::string join_filters(const std::vector<std::string>& filters) {
  std::string s = "[";
  for (size_t i = 0; i < filters.size(); ++i) s += (i ? ", " : "") + ("'" + filters[i] + "'");
  return s + "]";
}

// What a directory entry is, after following a symlink (when the rules allow following it).
enum class EntryKind { kSkip, kFile, kDir };

struct ListingContext {
  const NameFilter* filter;
  const std::string* canonical_root;
  bool allow_outside;
};

// Decides what a symlink at `full` stands for. Targets that do not resolve (dangling, loops)
// and, unless allowed, targets outside the root are skipped.
EntryKind classify_symlink(const ListingContext& ctx, const std::string& full,
                           std::string_view name) {
  struct stat st;
  if (::stat(full.c_str(), &st) != 0) return EntryKind::kSkip;
  EntryKind kind = S_ISDIR(st.st_mode)   ? EntryKind::kDir
                   : S_ISREG(st.st_mode) ? EntryKind::kFile
                                         : EntryKind::kSkip;
  // Resolving costs a syscall per path component: only for links that could be listed.
  if (kind == EntryKind::kSkip || (kind == EntryKind::kFile && !ctx.filter->matches(name))) {
    return EntryKind::kSkip;
  }
  if (!ctx.allow_outside) {
    std::string target = real_path(full);
    if (target.empty() || !is_within(target, *ctx.canonical_root)) return EntryKind::kSkip;
  }
  return kind;
}

EntryKind kind_of(int dir_fd, const struct dirent* de, const std::string& dir_path,
                  const ListingContext& ctx) {
  unsigned char type = de->d_type;
  if (type == DT_UNKNOWN) {
    // Some file systems (XFS without ftype, some network ones) do not fill d_type.
    struct stat st;
    if (::fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) return EntryKind::kSkip;
    type = S_ISDIR(st.st_mode)   ? DT_DIR
           : S_ISREG(st.st_mode) ? DT_REG
           : S_ISLNK(st.st_mode) ? DT_LNK
                                 : DT_UNKNOWN;
  }
  switch (type) {
    case DT_REG:
      return ctx.filter->matches(de->d_name) ? EntryKind::kFile : EntryKind::kSkip;
    case DT_DIR:
      return EntryKind::kDir;
    case DT_LNK:
      return classify_symlink(ctx, dir_path + "/" + de->d_name, de->d_name);
    default:
      return EntryKind::kSkip;  // FIFOs, sockets, devices
  }
}

std::string join(const std::string& dir, std::string_view name) {
  std::string path;
  path.reserve(dir.size() + 1 + name.size());
  path.append(dir).push_back('/');
  path.append(name);
  return path;
}

// Opens the folder `path`, asks enter(identity) whether to list it, then calls fn(name, kind)
// for every entry except "." and "..". Returns false when the folder was not listed: it vanished
// (ENOENT) and `missing_ok`, or enter() declined.
template <typename Enter, typename Fn>
bool for_each_entry(const std::string& path, const ListingContext& ctx, bool missing_ok,
                    Enter&& enter, Fn&& fn) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (missing_ok && (errno == ENOENT || errno == ENOTDIR)) return false;
    throw IOError(make_string("cannot list folder '", path, "': ", std::strerror(errno)));
  }
  struct stat id;
  if (::fstat(fd, &id) != 0) {
    int err = errno;
    ::close(fd);
    throw IOError(make_string("cannot list folder '", path, "': ", std::strerror(err)));
  }
  if (!enter(id)) {
    ::close(fd);
    return false;
  }
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    int err = errno;
    ::close(fd);
    throw IOError(make_string("cannot list folder '", path, "': ", std::strerror(err)));
  }
  try {
    for (;;) {
      errno = 0;
      const struct dirent* de = ::readdir(dir);
      if (de == nullptr) {
        if (errno != 0) {
          throw IOError(
              make_string("error while listing folder '", path, "': ", std::strerror(errno)));
        }
        break;
      }
      if (de->d_name[0] == '.' &&
          (de->d_name[1] == '\0' || (de->d_name[1] == '.' && de->d_name[2] == '\0'))) {
        continue;
      }
      EntryKind kind = kind_of(::dirfd(dir), de, path, ctx);
      if (kind != EntryKind::kSkip) fn(std::string_view(de->d_name), kind);
    }
  } catch (...) {
    ::closedir(dir);
    throw;
  }
  ::closedir(dir);
  return true;
}

// Lists one class folder recursively into `out` (unsorted).
void list_class(const std::string& class_path, int32_t label, const ListingContext& ctx,
                std::vector<FileEntry>& out) {
  // Folders being listed, with their parents, to detect symlink cycles (a link to an ancestor).
  struct Visited {
    dev_t dev;
    ino_t ino;
    int parent;
  };
  struct Pending {
    std::string path;
    int parent;  // index in `visited` of the folder containing it; -1 for the class folder
  };
  std::vector<Visited> visited;
  std::vector<Pending> pending;
  pending.push_back({class_path, -1});
  while (!pending.empty()) {
    Pending dir = std::move(pending.back());
    pending.pop_back();
    const int self = static_cast<int>(visited.size());
    auto enter = [&](const struct stat& id) {
      // A folder that is its own ancestor is already being listed: following it would not end.
      for (int a = dir.parent; a >= 0; a = visited[a].parent) {
        if (visited[a].dev == id.st_dev && visited[a].ino == id.st_ino) return false;
      }
      visited.push_back({id.st_dev, id.st_ino, dir.parent});
      return true;
    };
    // Sub-folders may vanish while we list (files changing underfoot): skip those.
    for_each_entry(dir.path, ctx, /*missing_ok=*/dir.parent >= 0, enter,
                   [&](std::string_view name, EntryKind kind) {
                     if (kind == EntryKind::kFile) {
                       out.push_back({join(dir.path, name), label});
                     } else {
                       pending.push_back({join(dir.path, name), self});
                     }
                   });
  }
}

}  // namespace

NameFilter::NameFilter(const std::vector<std::string>& patterns, bool case_sensitive)
    : case_sensitive_(case_sensitive) {
  for (const std::string& p : patterns) {
    if (is_suffix_pattern(p)) {
      std::string suffix = p.substr(1);
      if (!case_sensitive_)
        std::transform(suffix.begin(), suffix.end(), suffix.begin(), ascii_lower);
      suffixes_.push_back(std::move(suffix));
    } else {
      globs_.push_back(p);
    }
  }
}

bool NameFilter::matches(std::string_view name) const {
  for (const std::string& s : suffixes_) {
    if (name.size() < s.size()) continue;
    std::string_view tail = name.substr(name.size() - s.size());
    if (case_sensitive_) {
      if (tail == s) return true;
    } else if (std::equal(tail.begin(), tail.end(), s.begin(),
                          [](char a, char b) { return ascii_lower(a) == b; })) {
      return true;
    }
  }
  if (globs_.empty()) return false;
  std::string z(name);  // fnmatch needs a NUL-terminated name
  const int flags = case_sensitive_ ? 0 : FNM_CASEFOLD;
  for (const std::string& g : globs_) {
    if (::fnmatch(g.c_str(), z.c_str(), flags) == 0) return true;
  }
  return false;
}

FileDataset list_class_folders(const FileDatasetOptions& options) {
  SLUICE_CHECK(!options.file_filters.empty(), InvalidArgument,
               "file_filters is empty: no file of file_root '", options.file_root,
               "' could match (give at least one glob such as '*.jpg')");
  FileDataset ds;
  ds.root = strip_trailing_slashes(options.file_root);
  const std::string canonical_root = canonical_directory(ds.root, "file_root");
  const NameFilter filter(options.file_filters, options.case_sensitive_filter);
  const ListingContext ctx{&filter, &canonical_root, options.allow_paths_outside_root};
  const std::string prefix = ds.root == "/" ? "" : ds.root;  // join() adds the '/'

  // 1. Class folders: the sub-folders of the root (symlinks to folders per the rules).
  for_each_entry(
      ds.root, ctx, /*missing_ok=*/false, [](const struct stat&) { return true; },
      [&](std::string_view name, EntryKind kind) {
        if (kind == EntryKind::kDir) ds.class_names.emplace_back(name);
      });
  SLUICE_CHECK(!ds.class_names.empty(), InvalidArgument, "file_root '", ds.root,
               "' has no class sub-folders (expected one sub-folder per class)");
  // std::string compares bytes as unsigned char: byte-wise order, independent of the locale.
  std::sort(ds.class_names.begin(), ds.class_names.end());

  // 2. Each class folder on its own thread; then sort within the class.
  std::vector<std::vector<FileEntry>> per_class(ds.class_names.size());
  run_parallel(static_cast<int64_t>(per_class.size()), options.pool, options.num_threads,
               [&](int64_t c) {
                 std::vector<FileEntry>& out = per_class[c];
                 list_class(join(prefix, ds.class_names[c]), static_cast<int32_t>(c), ctx, out);
                 // Same prefix within a class: ordering full paths orders relative paths.
                 std::sort(out.begin(), out.end(),
                           [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
               });

  // 3. Concatenate in label order (moves the strings, no copies).
  size_t total = 0;
  for (const auto& v : per_class) total += v.size();
  SLUICE_CHECK(total > 0, InvalidArgument, "file_root '", ds.root, "' has ", ds.class_names.size(),
               " class folder(s) but no file in them matches file_filters ",
               join_filters(options.file_filters),
               options.case_sensitive_filter ? " (case-sensitive)" : " (case-insensitive)");
  ds.entries.reserve(total);
  for (auto& v : per_class) {
    std::move(v.begin(), v.end(), std::back_inserter(ds.entries));
    std::vector<FileEntry>().swap(v);
  }
  return ds;
}

}  // namespace sluice::io_detail
