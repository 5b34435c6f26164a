#include "sluice/io/file_dataset.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>

#include "sluice/core/error.h"
#include "sluice/core/text.h"
#include "sluice/io/detail/directory_listing.h"
#include "sluice/io/detail/path_guard.h"
#include "sluice/io/detail/run_parallel.h"
#include "sluice/io/read_file.h"
#include "sluice/io/s3_client.h"
#include "sluice/io/s3_dataset.h"

namespace sluice {
namespace {

using io_detail::ContainmentChecker;
using io_detail::lexical_problem;
using io_detail::strip_trailing_slashes;

// Entries checked per parallel task: large enough to amortise the per-task directory cache.
constexpr int64_t kCheckChunk = 4096;
// Consecutive entries of one folder from which reading the folder beats an lstat per entry.
constexpr int64_t kFolderScanRun = 16;

// The folder part of a joined path ("" when it has none), and the name after it.
std::string_view parent_of(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {};
  return slash == 0 ? path.substr(0, 1) : path.substr(0, slash);
}
std::string_view base_name_of(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Where an entry came from, for error messages: "file_list 'l.txt' line 7" or "files[3]".
struct EntrySource {
  std::string list_file;       // empty: the entry came from `files`
  std::vector<int64_t> lines;  // list_file only: the line of each entry
  std::string describe(int64_t i) const {
    if (list_file.empty()) return make_string("files[", i, "]");
    return make_string("file_list '", list_file, "' line ", lines[i]);
  }
};

// Joins `relative` entries (already spelled-checked) to `root`. `root` empty: the working
// directory, paths stay as they are.
std::string join_entry(const std::string& root, const std::string& entry) {
  if (root.empty() || entry[0] == '/' || is_s3_uri(entry)) return entry;
  if (root == "/") return "/" + entry;
  return root + "/" + entry;
}

// Turns raw entries into dataset entries: checks spelling, joins with the root, and checks on
// disk (in parallel) that the entries of `contained` do not resolve outside the root. Reports the
// first bad entry in order.
void resolve_entries(std::vector<FileEntry>& entries, const std::string& root,
                     const std::vector<char>& contained, const EntrySource& source,
                     const FileDatasetOptions& options) {
  std::vector<int64_t> checked;  // the entries to keep inside the root
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string problem = lexical_problem(entries[i].path, !contained[i]);
    if (problem.empty() && contained[i] && is_s3_uri(entries[i].path)) {
      problem = "it is an s3:// URI, not a path relative to the root";
    }
    if (!problem.empty()) {
      // Hint at the flag only for what the flag accepts.
      const bool always_bad = !lexical_problem(entries[i].path, true).empty();
      throw InvalidArgument(make_string(
          source.describe(static_cast<int64_t>(i)), ": entry '", entries[i].path,
          "' is rejected: ", problem,
          always_bad ? "" : " (set allow_paths_outside_root to accept paths outside the root)"));
    }
    entries[i].path = join_entry(root, entries[i].path);
    if (contained[i]) checked.push_back(static_cast<int64_t>(i));
  }
  // Object storage has no symlinks: the spelling checks above are all there is.
  if (checked.empty() || is_s3_uri(root)) return;

  const std::string canonical_root = io_detail::canonical_directory(root, "file_root");
  const int64_t n = static_cast<int64_t>(checked.size());
  const int64_t chunks = (n + kCheckChunk - 1) / kCheckChunk;
  // Per chunk: position (in `checked`) of its first bad entry (or n) and why. Picking the lowest
  // afterwards makes the reported entry independent of thread timing.
  std::vector<std::pair<int64_t, std::string>> first_bad(chunks, {n, {}});
  io_detail::run_parallel(chunks, options.pool, options.num_threads, [&](int64_t c) {
    ContainmentChecker checker(root, canonical_root);
    const int64_t chunk_end = std::min(n, (c + 1) * kCheckChunk);
    auto path_at = [&](int64_t k) -> const std::string& { return entries[checked[k]].path; };
    // Entries of one folder tend to be listed together: check such a run with one readdir of
    // the folder instead of an lstat per entry.
    for (int64_t k = c * kCheckChunk; k < chunk_end;) {
      const std::string_view folder = parent_of(path_at(k));
      int64_t run_end = k + 1;
      while (run_end < chunk_end && parent_of(path_at(run_end)) == folder) ++run_end;
      std::optional<std::vector<std::string>> links;
      if (run_end - k >= kFolderScanRun) {
        std::string problem = checker.folder_problem(std::string(folder));
        if (!problem.empty()) {
          first_bad[c] = {k, std::move(problem)};
          return;
        }
        links = ContainmentChecker::symlinks_in(std::string(folder));
      }
      for (; k < run_end; ++k) {
        const std::string& path = path_at(k);
        std::string problem;
        if (!links) {
          problem = checker.problem(path);
        } else if (std::binary_search(links->begin(), links->end(), base_name_of(path),
                                      std::less<>())) {
          problem = checker.link_problem(path);
        }
        if (!problem.empty()) {
          first_bad[c] = {k, std::move(problem)};
          return;
        }
      }
    }
  });
  for (const auto& [k, problem] : first_bad) {
    if (k < n) {
      const int64_t i = checked[k];
      throw InvalidArgument(
          make_string(source.describe(i), ": entry '", entries[i].path, "' is rejected: ", problem,
                      " (set allow_paths_outside_root to accept paths outside the root)"));
    }
  }
}

// Whether file_root is to contain the entries: only a given file_root does (DALI reads every
// path as given; Sluice keeps what a file list or `files` names under file_root inside it).
bool contain_in_root(const FileDatasetOptions& options) {
  return !options.file_root.empty() && !options.allow_paths_outside_root;
}

FileDataset list_from_file_list(const FileDatasetOptions& options) {
  FileDataset ds;
  EntrySource source;
  source.list_file = options.file_list;
  if (!options.file_root.empty()) {
    ds.root = strip_trailing_slashes(options.file_root);
  } else {
    size_t slash = options.file_list.rfind('/');
    ds.root = slash == std::string::npos ? "."
              : slash == 0               ? "/"
                                         : options.file_list.substr(0, slash);
  }

  std::vector<uint8_t> bytes;
  if (is_s3_uri(options.file_list)) {
    bytes = read_s3_object(options.file_list, kDefaultMaxFileSize);
  } else {
    read_file(options.file_list, bytes);
  }
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 BOM (Notepad)

  int64_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;

    auto fail = [&](const std::string& what) {
      throw InvalidArgument(make_string("file_list '", options.file_list, "' line ", line_no, ": ",
                                        what, " in '", line, "'"));
    };
    size_t label_start = line.size();
    while (label_start > 0 && !is_blank(line[label_start - 1])) --label_start;
    if (label_start == 0) fail("expected '<path> <label>' but found a single token");
    std::string_view label_text = line.substr(label_start);
    std::string_view path = trim(line.substr(0, label_start));

    int32_t label = 0;
    auto [ptr, ec] =
        std::from_chars(label_text.data(), label_text.data() + label_text.size(), label);
    if (ec == std::errc::result_out_of_range) {
      fail(make_string("label '", label_text, "' is out of the int32 range"));
    }
    if (ec != std::errc() || ptr != label_text.data() + label_text.size()) {
      fail(make_string("label '", label_text, "' is not a decimal integer"));
    }
    ds.entries.push_back({std::string(path), label});
    source.lines.push_back(line_no);
  }
  SLUICE_CHECK(!ds.entries.empty(), InvalidArgument, "file_list '", options.file_list,
               "' lists no files (only blank or comment lines)");
  // Every entry of a list is kept inside file_root, absolute ones included (they are refused).
  resolve_entries(ds.entries, ds.root,
                  std::vector<char>(ds.entries.size(), contain_in_root(options)), source, options);
  return ds;
}

FileDataset list_from_files(const FileDatasetOptions& options) {
  if (options.labels) {
    SLUICE_CHECK(options.labels->size() == options.files.size(), InvalidArgument, "labels has ",
                 options.labels->size(), " values but files has ", options.files.size());
  }
  FileDataset ds;
  ds.root = strip_trailing_slashes(options.file_root);
  ds.entries.reserve(options.files.size());
  for (size_t i = 0; i < options.files.size(); ++i) {
    // Without labels: 0..N-1, DALI's documented default.
    int32_t label = options.labels ? (*options.labels)[i] : static_cast<int32_t>(i);
    ds.entries.push_back({options.files[i], label});
  }
  // Absolute paths are read as given; relative ones are joined to file_root and kept inside it.
  std::vector<char> contained(ds.entries.size());
  for (size_t i = 0; i < contained.size(); ++i) {
    contained[i] = contain_in_root(options) && !ds.entries[i].path.empty() &&
                   ds.entries[i].path[0] != '/' && !is_s3_uri(ds.entries[i].path);
  }
  resolve_entries(ds.entries, ds.root, contained, EntrySource{}, options);
  return ds;
}

}  // namespace

const std::vector<std::string>& default_file_filters() {
  static const std::vector<std::string> filters = {"*.jpg", "*.jpeg", "*.png", "*.bmp",
                                                   "*.tif", "*.tiff", "*.pnm", "*.ppm",
                                                   "*.pgm", "*.pbm",  "*.jp2", "*.webp"};
  return filters;
}

FileDataset list_file_dataset(const FileDatasetOptions& options) {
  SLUICE_CHECK(options.files.empty() || options.file_list.empty(), InvalidArgument,
               "files and file_list are mutually exclusive (file_list is '", options.file_list,
               "', files has ", options.files.size(), " entries)");
  SLUICE_CHECK(!options.labels || !options.files.empty(), InvalidArgument,
               "labels are given without files (labels only apply to files)");
  if (!options.files.empty()) {
    SLUICE_CHECK(options.files.size() <= static_cast<size_t>(std::numeric_limits<int32_t>::max()) ||
                     options.labels,
                 InvalidArgument, "files has ", options.files.size(),
                 " entries: too many for default int32 labels");
    return list_from_files(options);
  }
  if (!options.file_list.empty()) return list_from_file_list(options);
  SLUICE_CHECK(!options.file_root.empty(), InvalidArgument,
               "no dataset given: set file_root, file_list or files");
  if (is_s3_uri(options.file_root)) return list_s3_class_folders(options);
  return io_detail::list_class_folders(options);
}

void read_ahead(const FileDataset& dataset, std::span<const int64_t> indices) noexcept {
  for (int64_t i : indices) {
    if (i >= 0 && i < dataset.size() && !is_s3_uri(dataset.entries[i].path)) {
      read_ahead(dataset.entries[i].path);
    }
  }
}

}  // namespace sluice
