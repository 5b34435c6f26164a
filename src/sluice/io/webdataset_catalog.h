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
// In object storage the reads of samples (ranged GETs of their tars) are started by start() and
// handed to read(); the reader keeps those of its next batches in flight (io/objects_ahead.h), on
// at most `connections` requests. A sample's components are one GET, and samples that lie next
// to each other in a tar, started together, share one (Note [One GET for neighbours]).
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
  // Samples started together share a ranged GET while its bytes stay within this and the gap
  // between two of them is at most max_range_gap bytes.
  size_t max_range = size_t{8} << 20;
  size_t max_range_gap = size_t{64} << 10;
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

  // The read of a sample's components, started: a ranged GET of its tar holding all of them
  // (and maybe its neighbours'), none where it has no components or its tar is on disk. Any
  // number of users may share it.
  struct SampleRead {
    Sample sample;
    std::shared_ptr<S3Prefetcher::Fetch> range;
    uint64_t range_offset = 0;  // where `range` starts in the tar
    size_t bytes = 0;           // the sample's own bytes in it
  };
  // Locates the samples `indices` and starts reading their components: ranged GETs (many in
  // flight) in object storage, shared by neighbours in the order given; a read-ahead hint to the
  // kernel on disk. One read per index, null where the sample cannot be located (its batch names
  // the error: locate()).
  std::vector<std::shared_ptr<const SampleRead>> start(const std::vector<int64_t>& indices) const;
  // "shard.tar:offset:member" of the sample's first non-empty output (DALI's source_info), or
  // "shard.tar sample N" for a sample without components.
  std::string source(const Sample& s) const;
  // Reads the component's bytes into dst: from `started` (the sample's read) when it holds them,
  // else by pread (IOError naming the shard and offset if it is short).
  void read(const Sample& s, const WdsComponent& c, void* dst,
            const SampleRead* started = nullptr) const;
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
