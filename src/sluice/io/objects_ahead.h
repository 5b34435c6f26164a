#pragma once
// Reading the objects of the next batches ahead, for readers of object storage that read one
// object per sample (readers.file, readers.numpy): a round trip takes tens of milliseconds, more
// than a fast pipeline spends on a batch, so the reads of several batches must be in flight.
//
// The reader names the objects by dataset index and gives, each iteration, the indices of the
// batches ahead and a way to start a read; ObjectsAhead keeps those reads in flight, several
// batches deep within a byte budget (Note [Look-ahead]), hands a read out when its batch comes,
// and drops the reads no longer ahead. A read is a shared handle (`Read`, e.g. a
// std::shared_ptr to an S3Prefetcher::Fetch); dropping it drops the reader's interest, and the
// prefetcher's destruction abandons the reads still in flight (teardown, checkpoint restore).
//
// Thread safety: one thread (the reader's run()) uses an ObjectsAhead; batches_ahead() and
// bytes_ahead() may be read from any thread.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sluice {

// How far ahead to read: at most `batches` batches, and no farther than `bytes` of reads held.
struct ObjectsAheadLimits {
  int64_t batches = 1;
  size_t bytes = 0;
  // SLUICE_S3_LOOKAHEAD_BATCHES (default: enough batches to give each of `connections` an
  // object, and one more) and SLUICE_S3_LOOKAHEAD_MB (default 512).
  static ObjectsAheadLimits from_environment(int connections, int batch_size);
};

// The batches ahead that fit the limits (Note [Look-ahead]).
struct AheadPlan {
  int64_t batches = 0;       // how many batches ahead
  size_t bytes = 0;          // their bytes, known or estimated, each object counted once
  std::vector<int64_t> ids;  // their objects, each once, in the order of the batches
};

// `batch_ids(k)`: the objects of the batch k iterations ahead (empty: none that far);
// `known_bytes(id)`: the bytes of a read in flight when known, else nullopt (`mean` stands for it
// and for objects not yet requested; 0 while no object has been read).
AheadPlan plan_objects_ahead(const std::function<std::vector<int64_t>(int64_t k)>& batch_ids,
                             const ObjectsAheadLimits& limits, size_t mean,
                             const std::function<std::optional<size_t>(int64_t id)>& known_bytes);

template <class Read>
class ObjectsAhead {
 public:
  // Starts the read of object `id`; may return a null Read (nothing to read ahead for it).
  using Start = std::function<Read(int64_t id)>;
  // Another handle on a read already handed out, for a second use (the same handle where a read
  // may serve several users at once).
  using Share = std::function<Read(const Read&)>;
  // The bytes a read holds or will hold, when known without waiting.
  using Bytes = std::function<std::optional<size_t>(const Read&)>;
  using BatchIds = std::function<std::vector<int64_t>(int64_t k)>;
  // Starts the reads of several objects at once, one Read per id in their order (a reader that
  // merges the reads of neighbouring objects: readers.webdataset).
  using StartAll = std::function<std::vector<Read>(const std::vector<int64_t>& ids)>;

  ObjectsAhead(ObjectsAheadLimits limits, Bytes bytes)
      : limits_(limits), bytes_(std::move(bytes)) {}

  // The read of object `id` for the batch being read: the one ahead, else one started now; an
  // object taken twice in a batch is shared. Call for the batch's objects, then plan().
  Read take(int64_t id, const Start& start, const Share& share) {
    if (auto t = taken_.find(id); t != taken_.end()) return t->second ? share(t->second) : Read();
    Read r;
    if (auto it = ahead_.find(id); it != ahead_.end()) {
      r = std::move(it->second);
      ahead_.erase(it);
    } else {
      r = start(id);
    }
    taken_.emplace(id, r);
    return r;
  }

  // Keeps the reads of the batches ahead in flight (Note [Look-ahead]): those already ahead,
  // those taken for this batch shared, the others started (together, in the batches' order);
  // drops the rest.
  void plan(const BatchIds& batch_ids, const Start& start, const Share& share) {
    plan(batch_ids, StartAll([&start](const std::vector<int64_t>& ids) {
           std::vector<Read> reads;
           reads.reserve(ids.size());
           for (int64_t id : ids) reads.push_back(start(id));
           return reads;
         }),
         share);
  }
  void plan(const BatchIds& batch_ids, const StartAll& start_all, const Share& share) {
    const size_t mean = objects_read_ ? std::max<size_t>(1, bytes_read_ / objects_read_) : 0;
    const AheadPlan p =
        plan_objects_ahead(batch_ids, limits_, mean, [&](int64_t id) -> std::optional<size_t> {
          const Read* r = find(id);
          if (r == nullptr) return std::nullopt;
          return *r ? bytes_(*r) : 0;
        });
    std::unordered_map<int64_t, Read> kept;
    std::vector<int64_t> fresh;
    for (int64_t id : p.ids) {
      if (auto it = ahead_.find(id); it != ahead_.end()) {
        kept.emplace(id, std::move(it->second));
      } else if (auto t = taken_.find(id); t != taken_.end()) {
        kept.emplace(id, t->second ? share(t->second) : Read());
      } else {
        fresh.push_back(id);
      }
    }
    std::vector<Read> started = start_all(fresh);
    for (size_t i = 0; i < fresh.size(); ++i) kept.emplace(fresh[i], std::move(started[i]));
    ahead_ = std::move(kept);
    taken_.clear();
    batches_ahead_ = p.batches;
    bytes_ahead_ = static_cast<int64_t>(p.bytes);
  }

  // Counts objects read (their bytes) for the estimate of those not yet known.
  void read(size_t objects, size_t bytes) {
    objects_read_ += objects;
    bytes_read_ += bytes;
  }
  // Drops the read of `id` kept ahead (after it failed: a later batch asks again).
  void forget(int64_t id) { ahead_.erase(id); }

  int64_t batches_ahead() const { return batches_ahead_.load(); }
  int64_t bytes_ahead() const { return bytes_ahead_.load(); }

 private:
  const Read* find(int64_t id) const {
    if (auto it = ahead_.find(id); it != ahead_.end()) return &it->second;
    if (auto t = taken_.find(id); t != taken_.end()) return &t->second;
    return nullptr;
  }

  ObjectsAheadLimits limits_;
  Bytes bytes_;
  std::unordered_map<int64_t, Read> ahead_;  // the reads of the batches ahead, by object
  std::unordered_map<int64_t, Read> taken_;  // those handed out for the batch being read
  size_t objects_read_ = 0;
  size_t bytes_read_ = 0;
  std::atomic<int64_t> batches_ahead_{0};
  std::atomic<int64_t> bytes_ahead_{0};
};

}  // namespace sluice
