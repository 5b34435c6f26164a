#pragma once
// The samples of many WebDataset shards without listing every member up front.
//
// With index files and missing_component_behavior "empty", only each index's first line is read
// when the catalog is made (its sample count); a shard's index is parsed, and its tar opened, the
// first time one of its samples is asked for (each tar is only checked to be a readable regular
// file up front). Without an index a shard's tar is scanned, and with
// "skip" or "error" its index is parsed, at once, since the count depends on it. Loaded shards
// are kept in a small cache (least recently used out); a sample keeps its shard alive while used.
//
// In object storage the reads of a sample's components (ranged GETs of its tar) are started by
// start() and handed to read(); the reader keeps those of its next batches in flight
// (io/objects_ahead.h), on at most `connections` requests.
//
// Thread safety: locate(), start() and read() may be called from several threads at once.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sluice/core/mutex.h"
#include "sluice/io/s3_client.h"
#include "sluice/io/tar_archive.h"
#include "sluice/io/webdataset_index.h"

namespace sluice {

struct WdsCatalogOptions {
  std::vector<std::string> paths;        // the tar shards
  std::vector<std::string> index_paths;  // none, or one per shard
  WdsOutputs outputs;
  size_t max_cached_shards = 64;
  // Requests in flight at most for shards in object storage (fewer within the process's
  // descriptor limit: S3Prefetcher).
  int connections = 32;
};

struct WdsShard {
  std::unique_ptr<PreadFile> file;
  WdsShardSamples samples;
};

class WebDatasetCatalog {
 public:
  explicit WebDatasetCatalog(WdsCatalogOptions options);

  int64_t size() const { return starts_.back(); }
  int num_outputs() const { return static_cast<int>(options_.outputs.ext_groups.size()); }

  struct Sample {
    std::shared_ptr<const WdsShard> shard;
    int64_t local = 0;  // the sample within its shard
    int shard_index = 0;
    const WdsComponent* component(int output) const {
      return shard->samples.component(local, output);
    }
  };
  // Dataset index -> its shard (loaded on first use) and position there.
  Sample locate(int64_t index) const;

  // The reads of a sample's components, started: one per output, null where the component is
  // missing, empty or in a tar on disk. Any number of users may share it.
  struct SampleRead {
    Sample sample;
    std::vector<std::shared_ptr<S3Prefetcher::Fetch>> fetches;
    size_t bytes = 0;  // what its fetches bring
  };
  // Locates sample `index` (errors as locate()) and starts reading its components: ranged GETs
  // (many in flight) in object storage, a read-ahead hint to the kernel on disk.
  std::shared_ptr<const SampleRead> start(int64_t index) const;
  // "shard.tar:offset:member" of the sample's first non-empty output (DALI's source_info), or
  // "shard.tar sample N" for a sample without components.
  std::string source(const Sample& s) const;
  // Reads the component's bytes into dst: those of `started` (its fetch in a SampleRead) when
  // given, else by pread (IOError naming the shard and offset if it is short).
  void read(const Sample& s, const WdsComponent& c, void* dst,
            S3Prefetcher::Fetch* started = nullptr) const;
  // Asks the kernel to read the sample's components ahead (loads its shard; errors ignored), for
  // shards on disk.
  void read_ahead(int64_t index) const noexcept;
  // Whether some shard is in object storage, and then the most requests in flight at once.
  bool remote() const { return prefetcher_ != nullptr; }
  int connections() const { return prefetcher_ ? prefetcher_->connections() : 0; }
  // Shards loaded so far (for tests of lazy loading).
  int64_t loads() const;

 private:
  std::shared_ptr<const WdsShard> load(int shard) const;
  std::shared_ptr<const WdsShard> cached(int shard) const;

  WdsCatalogOptions options_;
  std::vector<int64_t> starts_;  // first dataset index of each shard, then the total
  mutable Mutex mu_;
  struct Entry {
    std::shared_ptr<const WdsShard> shard;
    uint64_t last_use = 0;
  };
  mutable std::unordered_map<int, Entry> cache_ SLUICE_GUARDED_BY(mu_);
  mutable uint64_t tick_ SLUICE_GUARDED_BY(mu_) = 0;
  mutable int64_t loads_ SLUICE_GUARDED_BY(mu_) = 0;
  std::unique_ptr<S3Prefetcher> prefetcher_;  // when some shard is an s3:// URI
};

}  // namespace sluice
