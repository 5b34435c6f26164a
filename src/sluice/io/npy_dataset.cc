#include "sluice/io/npy_dataset.h"

#include <dirent.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <string_view>

#include "sluice/core/env.h"
#include "sluice/core/error.h"
#include "sluice/core/text.h"
#include "sluice/io/detail/path_guard.h"
#include "sluice/io/read_file.h"
#include "sluice/io/s3_client.h"
#include "sluice/io/s3_dataset.h"

namespace sluice {
namespace {

std::vector<std::string> read_list(const std::string& list) {
  std::vector<uint8_t> bytes;
  read_file_or_object(list, bytes, kDefaultMaxFileSize);
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 BOM
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = trim(text.substr(pos, end - pos));
    if (!line.empty()) out.emplace_back(line);
    pos = end + 1;
  }
  SLUICE_CHECK(!out.empty(), InvalidArgument, "file_list '", list, "' names no files");
  return out;
}

// The names in `dir` that are files (after following symlinks that may be followed) matching
// `filter`, or folders when `folders`; sorted.
std::vector<std::string> names_in(const std::string& dir, const std::string& filter, bool folders,
                                  const std::string& canonical_root, bool allow_outside) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    throw IOError(make_string("cannot list folder '", dir, "': ", std::strerror(errno)));
  }
  std::vector<std::string> out;
  while (const struct dirent* de = ::readdir(d)) {
    std::string name = de->d_name;
    if (name == "." || name == "..") continue;
    if (!folders && ::fnmatch(filter.c_str(), name.c_str(), 0) != 0) continue;
    std::string full = dir + "/" + name;
    struct stat lst, st;
    if (::lstat(full.c_str(), &lst) != 0 || ::stat(full.c_str(), &st) != 0) continue;
    if (folders ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) continue;
    if (S_ISLNK(lst.st_mode) && !allow_outside) {
      std::string target = io_detail::real_path(full);
      if (target.empty() || !io_detail::is_within(target, canonical_root)) continue;
    }
    out.push_back(std::move(name));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

FileDataset list_tree(const NpyDatasetOptions& o) {
  FileDataset ds;
  ds.root = io_detail::strip_trailing_slashes(o.file_root);
  const std::string canonical = io_detail::canonical_directory(ds.root, "file_root");
  auto add_folder = [&](const std::string& rel) {
    std::string dir = rel.empty() ? ds.root : ds.root + "/" + rel;
    for (std::string& n :
         names_in(dir, o.file_filter, false, canonical, o.allow_paths_outside_root)) {
      ds.entries.push_back({dir + "/" + n, 0});
    }
  };
  add_folder("");
  for (const std::string& sub :
       names_in(ds.root, "", true, canonical, o.allow_paths_outside_root)) {
    add_folder(sub);
  }
  SLUICE_CHECK(!ds.entries.empty(), InvalidArgument, "no files matching '", o.file_filter,
               "' in file_root '", o.file_root, "' or its sub-folders");
  return ds;
}

// The tree in object storage: the keys directly under the prefix, then those one sub-prefix
// down, grouped and ordered as the folders on disk (keys arrive in byte order of the whole key,
// where "a/x" sorts before "a-b/x" but "a" is the first folder).
FileDataset list_s3_tree(const NpyDatasetOptions& o) {
  FileDataset ds;
  ds.root = io_detail::strip_trailing_slashes(o.file_root);
  const S3Uri root = S3Uri::parse(ds.root);
  const std::string prefix = root.key.empty() ? std::string() : root.key + "/";
  const std::string base = make_string("s3://", root.bucket, "/", prefix);
  std::vector<std::string> top;
  std::map<std::string, std::vector<std::string>, std::less<>> folders;
  S3Client::shared()->list(
      root.bucket, prefix,
      [&](std::string_view key, uint64_t) {
        std::string_view rel = key.substr(prefix.size());
        const size_t slash = rel.find('/');
        std::string_view name = rel.substr(slash == std::string_view::npos ? 0 : slash + 1);
        // Deeper keys, folder markers ("x/") and empty folder names ("/x") are no files here.
        if (name.empty() || name.find('/') != std::string_view::npos || slash == 0) return;
        if (::fnmatch(o.file_filter.c_str(), std::string(name).c_str(), 0) != 0) return;
        if (slash == std::string_view::npos) {
          top.push_back(base + std::string(rel));
          return;
        }
        auto it = folders.find(rel.substr(0, slash));
        if (it == folders.end()) {
          it = folders.emplace(std::string(rel.substr(0, slash)), std::vector<std::string>()).first;
        }
        it->second.push_back(base + std::string(rel));
      },
      env_int("SLUICE_S3_LIST_PAGE", 1000, 1, 1000));
  for (std::string& k : top) ds.entries.push_back({std::move(k), 0});
  for (auto& [name, keys] : folders) {
    for (std::string& k : keys) ds.entries.push_back({std::move(k), 0});
    std::vector<std::string>().swap(keys);
  }
  SLUICE_CHECK(!ds.entries.empty(), InvalidArgument, "no files matching '", o.file_filter,
               "' in file_root '", o.file_root, "' or its sub-prefixes");
  return ds;
}

}  // namespace

FileDataset list_npy_dataset(const NpyDatasetOptions& o) {
  SLUICE_CHECK(o.files.empty() || o.file_list.empty(), InvalidArgument,
               "File paths can be provided through ``files`` or ``file_list`` but not both.");
  if (o.files.empty() && o.file_list.empty()) {
    SLUICE_CHECK(!o.file_root.empty(), InvalidArgument,
                 "no dataset given: set file_root, file_list or files");
    return is_s3_uri(o.file_root) ? list_s3_tree(o) : list_tree(o);
  }
  FileDatasetOptions fo;
  fo.file_root = o.file_root;
  fo.allow_paths_outside_root = o.allow_paths_outside_root;
  fo.files = o.files;
  if (!o.file_list.empty()) {
    fo.files = read_list(o.file_list);
    size_t slash = o.file_list.rfind('/');
    if (o.file_root.empty() && slash != std::string::npos) {
      // Without file_root, entries are relative to the list's folder.
      const std::string base = o.file_list.substr(0, slash + 1);
      for (std::string& f : fo.files) {
        if (f[0] != '/' && !is_s3_uri(f)) f = base + f;
      }
    }
  }
  FileDataset ds = list_file_dataset(fo);
  for (FileEntry& e : ds.entries) e.label = 0;
  return ds;
}

}  // namespace sluice
