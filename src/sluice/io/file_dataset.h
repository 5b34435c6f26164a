#pragma once
// Listing the samples of a file dataset: the (path, label) entries that readers.file reads.
//
// A dataset is a vector of entries indexed 0..N-1 in listing order; EpochPlan (epoch_plan.h)
// decides in which order and on which shard they are read. Three sources, as in DALI's
// fn.readers.file:
//
//  (a) `file_root` alone: one sub-folder per class. The label of a file is the index of its class
//      folder among all class folders sorted byte-wise by name (empty class folders keep their
//      label). Files in nested folders of a class folder belong to that class. Within a class,
//      files are sorted byte-wise by their path relative to the class folder. A file is listed
//      when its name (not its folder) matches at least one `file_filters` glob (fnmatch(3) with
//      no flags: `*` also matches a leading dot), ASCII-case-insensitively unless
//      `case_sensitive_filter`. Regular files directly in file_root, and anything other than
//      regular files and folders, are ignored.
//  (b) `file_list`: a text file with one "<path> <label>" per line. The label is the last
//      whitespace-separated token, so paths may contain spaces (but not start or end with one;
//      no escape sequences: backslashes are literal). Lines are trimmed; blank lines and lines
//      whose first non-blank character is '#' are skipped; a trailing '\r' (CRLF files) and a
//      leading UTF-8 byte-order mark are dropped. Paths are relative to `file_root`, or to the
//      list file's folder when no file_root is given. Labels are decimal int32. Order = line
//      order.
//  (c) `files` (+ optional `labels`): paths relative to `file_root`, or to the current working
//      directory when no file_root is given. Without `labels`, the labels are 0..N-1, as DALI
//      documents ("if not used, sequential 0-based indices are used as labels").
//
// Path safety (reliability.md §5). Lists and directory trees are untrusted input; a given
// `file_root` contains them. Unless `allow_paths_outside_root` is set:
//  - with `file_root`, an entry of (b), or a relative entry of (c), that is absolute, whose `..`
//    components climb above file_root, or that resolves outside it through a symlink (in the
//    file or any folder above it) is rejected with InvalidArgument naming the entry (and the
//    list file and line number);
//  - while listing (a), symlinked files and folders are followed only when they resolve inside
//    the root; others are skipped.
// Without `file_root` nothing contains the entries, and an absolute entry of (c) is never
// joined to file_root: such paths are read as given, as DALI reads them (`files` comes from the
// program, and a list without file_root names its files relative to itself, wherever they are).
// Always rejected in (b) and (c): empty paths and paths containing NUL, newline or CR.
// Containment is checked when the dataset is listed; a symlink planted afterwards is not seen.
// Entries that do not exist pass the listing (reading them reports the error, naming the file).
//
// Errors: bad arguments, malformed list lines, unsafe entries and an empty dataset are
// InvalidArgument; a root, folder or list that cannot be opened is IOError. Messages name the
// root, list file (with line number) or entry.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sluice {

class ThreadPool;

// One sample: the path to open (the root joined with the listed relative path, or the listed
// absolute path) and its label.
struct FileEntry {
  std::string path;
  int32_t label = 0;
};

// The result of listing: entries in dataset-index order.
struct FileDataset {
  std::vector<FileEntry> entries;
  // The directory relative entries were resolved against (and, when it is file_root, checked
  // to stay inside), as given, trailing slashes removed: file_root, else the list file's
  // folder, else "" (the working directory).
  std::string root;
  // Mode (a) only: class folder names, class_names[label].
  std::vector<std::string> class_names;

  int64_t size() const { return static_cast<int64_t>(entries.size()); }
};

// DALI's default image filters: *.jpg *.jpeg *.png *.bmp *.tif *.tiff *.pnm *.ppm *.pgm *.pbm
// *.jp2 *.webp.
const std::vector<std::string>& default_file_filters();

struct FileDatasetOptions {
  std::string file_root;                       // (a), or the base of (b) and (c)
  std::string file_list;                       // (b)
  std::vector<std::string> files;              // (c)
  std::optional<std::vector<int32_t>> labels;  // (c) only; size must equal files.size()
  std::vector<std::string> file_filters = default_file_filters();  // (a) only; non-empty
  bool case_sensitive_filter = false;                              // (a) only
  bool allow_paths_outside_root = false;
  // Listing and containment checks run in parallel (over class folders in (a), over chunks of
  // entries in (b) and (c)): on `pool` when given, else on up to `num_threads` short-lived
  // threads (<= 0: hardware concurrency, at most 16). Do not list from a worker of `pool`
  // itself: it would wait for tasks queued behind it.
  ThreadPool* pool = nullptr;
  int num_threads = 0;
};

// Lists the dataset described by `options`: (c) when `files` is non-empty, else (b) when
// `file_list` is set, else (a). Setting both `files` and `file_list`, or `labels` without
// `files`, is an InvalidArgument. An empty result is an InvalidArgument naming the root or list.
//
// Thread safety: a pure function of its arguments and the file system; may run concurrently.
FileDataset list_file_dataset(const FileDatasetOptions& options);

// Read-ahead (read_file.h) for the files of the given dataset indices, e.g. the next batch.
// Indices out of range are ignored; never throws.
void read_ahead(const FileDataset& dataset, std::span<const int64_t> indices) noexcept;

}  // namespace sluice
