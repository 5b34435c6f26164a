#pragma once
// Read-only access to LMDB databases (liblmdb) by position: the records of one or more databases
// in key order, as Caffe's and Caffe2's readers see them.
//
// Opening lists every key once (LMDB has no positional access; keys are short), so that record
// i is then one B-tree lookup from any thread, in its own read transaction. Errors are IOError
// naming the database and, for a record, its key. Without liblmdb (SLUICE_HAS_LMDB undefined)
// opening raises NotImplemented naming the package to install.
//
// LMDB maps its file: a database truncated by another process while open can crash the reader
// (SIGBUS). Databases are expected to be immutable while a pipeline reads them.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sluice {

// Whether this build has liblmdb.
bool lmdb_available();

class LmdbDatabases {
 public:
  explicit LmdbDatabases(std::vector<std::string> paths);
  ~LmdbDatabases();
  LmdbDatabases(const LmdbDatabases&) = delete;
  LmdbDatabases& operator=(const LmdbDatabases&) = delete;

  int64_t size() const;
  // "path at key K" for record `index` (DALI's source_info).
  std::string source(int64_t index) const;
  // The value of record `index` into `out` (resized).
  void read(int64_t index, std::vector<uint8_t>& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Writes `records` (key, value) into a new database folder `path` (made if missing); for tests
// and tools.
void write_lmdb(const std::string& path,
                const std::vector<std::pair<std::string, std::string>>& records);

}  // namespace sluice
