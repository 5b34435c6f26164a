#pragma once
// Listing the files of readers.numpy, as DALI's numpy reader lists them:
//  - `files`: the paths as given (relative ones to file_root, or to the working directory);
//  - `file_list`: a text file with one path per line (surrounding blanks trimmed, blank lines
//    skipped), relative to file_root, or to the list's folder without it;
//  - otherwise `file_root`: the files directly in it, then those of each of its sub-folders
//    (one level, folders in byte-wise name order), each folder's files in byte-wise order, whose
//    name matches the glob `file_filter` (fnmatch(3), case-sensitive, no flags: '*' also matches
//    a leading dot).
// Object storage: file_root, file_list and the entries may be s3:// URIs (s3_client.h). A root
// "s3://bucket/prefix" is listed page by page as the folder would be: the keys directly under
// the prefix, then those one sub-prefix down ("prefix/sub/name"), sub-prefixes in byte-wise
// order; deeper keys and folder markers ending in '/' are not files.
// Path safety is that of file_dataset.h: entries of `files` and `file_list` that leave a given
// file_root, and symlinks of the tree that resolve outside it, are refused (listing: skipped)
// unless `allow_paths_outside_root`.
// Errors: InvalidArgument for bad arguments and an empty dataset, IOError for a root or list that
// cannot be read; messages name the root, list or entry.
//
// Thread safety: a pure function of its arguments and the file system.

#include <string>
#include <vector>

#include "sluice/io/file_dataset.h"

namespace sluice {

struct NpyDatasetOptions {
  std::string file_root;
  std::string file_filter = "*.npy";
  std::string file_list;
  std::vector<std::string> files;
  bool allow_paths_outside_root = false;
};

// The dataset's entries in DALI's order (labels are unused and 0).
FileDataset list_npy_dataset(const NpyDatasetOptions& options);

}  // namespace sluice
