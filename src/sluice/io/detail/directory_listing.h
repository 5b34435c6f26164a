#pragma once
// Internal: mode (a) of list_file_dataset, one sub-folder per class under file_root.

#include <string>
#include <string_view>
#include <vector>

#include "sluice/io/file_dataset.h"

namespace sluice::io_detail {

// File-name filter: a name passes when it matches at least one glob. Patterns of the form
// "*<literal>" (e.g. "*.jpg", the common case) are matched as a suffix comparison, which is what
// fnmatch(3) with no flags does for them but without its per-call cost; others go to fnmatch.
// Case-insensitive matching folds ASCII letters (FNM_CASEFOLD for the fnmatch patterns).
class NameFilter {
 public:
  NameFilter(const std::vector<std::string>& patterns, bool case_sensitive);
  bool matches(std::string_view name) const;

 private:
  std::vector<std::string> suffixes_;  // lower-cased when !case_sensitive_
  std::vector<std::string> globs_;
  bool case_sensitive_;
};

// Lists `options.file_root` (see file_dataset.h, mode (a)).
FileDataset list_class_folders(const FileDatasetOptions& options);

}  // namespace sluice::io_detail
