#pragma once
// Listing a readers.file dataset in object storage: `file_root = "s3://bucket/prefix"` with one
// sub-prefix per class, as on disk (file_dataset.h, mode (a)).
//
// The prefix is listed page by page (ListObjectsV2, SLUICE_S3_LIST_PAGE keys a page, default
// 1000); only the matching keys of each page are kept, as dataset entries, never the pages. The
// labels and the order are those of the same tree on disk: class folders sorted byte-wise by name
// (a class is a sub-prefix holding at least one object), files sorted byte-wise by their key
// below the class. Objects directly under the prefix, and "folder" marker keys ending in '/', are
// ignored.

#include <cstdint>
#include <string>
#include <vector>

#include "sluice/io/file_dataset.h"

namespace sluice {

FileDataset list_s3_class_folders(const FileDatasetOptions& options);

// The whole object `uri` (a file list kept in object storage).
std::vector<uint8_t> read_s3_object(const std::string& uri, size_t max_size);

// read_file (read_file.h) for a local path, read_s3_object for an s3:// URI (index files).
void read_file_or_object(const std::string& path, std::vector<uint8_t>& out, size_t max_size);

}  // namespace sluice
