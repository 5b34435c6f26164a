#include "sluice/io/s3_dataset.h"

#include <algorithm>
#include <map>

#include "sluice/core/env.h"
#include "sluice/core/error.h"
#include "sluice/io/detail/directory_listing.h"
#include "sluice/io/detail/path_guard.h"
#include "sluice/io/read_file.h"
#include "sluice/io/s3_client.h"

namespace sluice {

FileDataset list_s3_class_folders(const FileDatasetOptions& options) {
  FileDataset ds;
  ds.root = io_detail::strip_trailing_slashes(options.file_root);
  S3Uri root = S3Uri::parse(ds.root);
  const std::string prefix = root.key.empty() ? std::string() : root.key + "/";
  const io_detail::NameFilter filter(options.file_filters, options.case_sensitive_filter);
  const int page = env_int("SLUICE_S3_LIST_PAGE", 1000, 1, 1000);

  // Keys arrive in byte order of the whole key, which is not the order of class names ("a-b/"
  // sorts before "a/"): collect per class, then concatenate by class name.
  std::map<std::string, std::vector<std::string>, std::less<>> classes;
  S3Client::shared()->list(
      root.bucket, prefix,
      [&](std::string_view key, uint64_t) {
        std::string_view rel = key.substr(prefix.size());
        size_t slash = rel.find('/');
        if (slash == std::string_view::npos || slash == 0 || rel.back() == '/') return;
        auto it = classes.find(rel.substr(0, slash));
        if (it == classes.end())
          it = classes.emplace(std::string(rel.substr(0, slash)), std::vector<std::string>()).first;
        std::string_view name = rel.substr(rel.rfind('/') + 1);
        if (filter.matches(name)) it->second.push_back(make_string("s3://", root.bucket, "/", key));
      },
      page);

  int32_t label = 0;
  for (auto& [name, keys] : classes) {
    for (auto& k : keys) ds.entries.push_back({std::move(k), label});
    std::vector<std::string>().swap(keys);
    ds.class_names.push_back(name);
    ++label;
  }
  SLUICE_CHECK(!ds.entries.empty(), InvalidArgument, "file_root '", ds.root,
               "' has no matching files in class sub-prefixes (",
               classes.empty() ? "no objects below it" : "no key matches file_filters", ")");
  return ds;
}

std::vector<uint8_t> read_s3_object(const std::string& uri, size_t max_size) {
  std::vector<uint8_t> out;
  S3Client::shared()->get(S3Uri::parse(uri), out, max_size);
  return out;
}

void read_file_or_object(const std::string& path, std::vector<uint8_t>& out, size_t max_size) {
  if (is_s3_uri(path)) {
    out = read_s3_object(path, max_size);
  } else {
    read_file(path, out, max_size);
  }
}

}  // namespace sluice
