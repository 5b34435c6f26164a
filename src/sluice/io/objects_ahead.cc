#include "sluice/io/objects_ahead.h"

#include <unordered_set>

#include "sluice/core/env.h"

namespace sluice {

ObjectsAheadLimits ObjectsAheadLimits::from_environment(int connections, int batch_size) {
  ObjectsAheadLimits l;
  const int batch = std::max(batch_size, 1);
  l.batches =
      env_int("SLUICE_S3_LOOKAHEAD_BATCHES", (connections + batch - 1) / batch + 1, 1, 1024);
  l.bytes = static_cast<size_t>(env_int("SLUICE_S3_LOOKAHEAD_MB", 512, 1, 1 << 20)) << 20;
  return l;
}

// Note [Look-ahead]
// ~~~~~~~~~~~~~~~~~
// Each iteration keeps in flight the objects of the next batches in the plan's order (across
// the epoch boundary), as many batches as limits.batches: a consumer faster than one round trip
// then still finds its batch fetched. Objects already requested (by an earlier iteration, or
// shared by two batches, as filled slots and a small dataset's next epoch are) are never
// requested again. The batches ahead stop where their fetched-but-unconsumed bytes would pass
// limits.bytes (the objects' sizes are those known, else the mean of those read so far; the
// first iteration, knowing none, reads one batch ahead); the next batch is always requested.
// Reads no longer ahead are dropped; the prefetcher's destruction (pipeline teardown, and a
// checkpoint restore, which builds a new pipeline) abandons the rest.
AheadPlan plan_objects_ahead(const std::function<std::vector<int64_t>(int64_t k)>& batch_ids,
                             const ObjectsAheadLimits& limits, size_t mean,
                             const std::function<std::optional<size_t>(int64_t id)>& known_bytes) {
  AheadPlan p;
  std::unordered_set<int64_t> kept;
  for (int64_t k = 1; k <= limits.batches; ++k) {
    const std::vector<int64_t> ids = batch_ids(k);
    if (ids.empty() || (k > 1 && mean == 0)) break;
    size_t batch_bytes = 0;
    std::unordered_set<int64_t> counted;
    for (int64_t id : ids) {
      if (kept.count(id) || !counted.insert(id).second) continue;
      batch_bytes += known_bytes(id).value_or(mean);
    }
    if (k > 1 && p.bytes + batch_bytes > limits.bytes) break;
    for (int64_t id : ids) {
      if (kept.insert(id).second) p.ids.push_back(id);
    }
    p.bytes += batch_bytes;
    p.batches = k;
  }
  return p;
}

}  // namespace sluice
