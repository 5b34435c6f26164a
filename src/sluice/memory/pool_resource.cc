#include "sluice/memory/pool_resource.h"

#include <pthread.h>

#include <algorithm>
#include <cstdio>

#include "sluice/core/env.h"
#include "sluice/core/error.h"

namespace sluice {
namespace {

size_t round_up(size_t x, size_t m) {
  return (x + m - 1) / m * m;
}

// SLUICE_LOG_POOL_GROWTH=1 prints each upstream allocation with the thread that asked: which
// buffers still grow after warm-up (the stage threads and pool workers are named).
bool log_growth() {
  static const bool on = env_int("SLUICE_LOG_POOL_GROWTH", 0, 0, 1) != 0;
  return on;
}

}  // namespace

PoolResource::PoolResource(MemoryKind kind, int device, Upstream upstream, size_t granularity)
    : kind_(kind), device_(device), upstream_(std::move(upstream)), granularity_(granularity) {}

PoolResource::~PoolResource() {
  // Process teardown: wait for pending frees, then hand every segment back. Blocks still in use
  // (a leaked buffer) are returned too; nothing may touch them after the pool is gone.
  std::lock_guard<std::mutex> lk(mu_);
  try {
    collect_pending_locked(/*wait=*/true);
  } catch (...) {
  }
  for (Block* head : segments_) {
    char* base = head->ptr;
    for (Block* b = head; b;) {
      Block* next = b->next;
      delete b;
      b = next;
    }
    upstream_.deallocate(base);
  }
}

void* PoolResource::allocate(size_t bytes) {
  size_t size = round_up(std::max<size_t>(bytes, 1), kAlignment);
  std::lock_guard<std::mutex> lk(mu_);
  ++stats_.allocations;
  collect_pending_locked(/*wait=*/false);
  Block* b = find_free_locked(size);
  if (!b && !pending_.empty()) {
    collect_pending_locked(/*wait=*/true);
    b = find_free_locked(size);
  }
  if (!b) {
    // No free block fits: first hand back the segments nothing uses, so that buffers growing
    // one after another (larger crops coming along) do not each leave their smaller segment
    // behind. Growth is rare after warm-up, and so is the synchronisation that freeing costs.
    release_unused_locked();
    check_limit_locked(size, bytes);
    if (!grow_locked(size)) {
      throw OutOfMemory(make_string("out of ", memory_kind_name(kind_), " memory",
                                    device_ >= 0 && kind_ == MemoryKind::kDevice
                                        ? make_string(" on device ", device_)
                                        : std::string(),
                                    ": cannot allocate ", bytes, " bytes (", stats_.allocated,
                                    " bytes in use by Sluice, ", stats_.reserved, " reserved)"));
    }
  }
  if (!b) b = find_free_locked(size);
  SLUICE_ENFORCE(b != nullptr, "pool invariant: no block after growing");
  b = split_locked(b, size);
  b->free = false;
  used_[b->ptr] = b;
  stats_.allocated += b->size;
  stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
  return b->ptr;
}

void PoolResource::deallocate(void* p, size_t, cuda::StreamHandle stream) {
  if (!p) return;
  std::lock_guard<std::mutex> lk(mu_);
  auto it = used_.find(p);
  SLUICE_ENFORCE(it != used_.end(), "deallocating a pointer this pool did not allocate");
  Block* b = it->second;
  used_.erase(it);
  stats_.allocated -= b->size;
  if (stream && device_ >= 0) {
    auto ev = take_event_locked();
    ev->record(stream);
    pending_.push_back({b, std::move(ev)});
  } else {
    free_block_locked(b);
  }
}

MemoryStats PoolResource::stats() const {
  std::lock_guard<std::mutex> lk(mu_);
  return stats_;
}

void PoolResource::release_unused() {
  std::lock_guard<std::mutex> lk(mu_);
  collect_pending_locked(/*wait=*/true);
  release_unused_locked();
}

void PoolResource::set_limit(size_t bytes) {
  std::lock_guard<std::mutex> lk(mu_);
  stats_.limit = bytes;
}

void PoolResource::check_limit_locked(size_t size, size_t bytes) {
  const size_t seg = round_up(size, granularity_);
  if (stats_.limit == 0 || stats_.reserved + seg <= stats_.limit) return;
  throw OutOfMemory(
      make_string(memory_kind_name(kind_), " memory limit reached",
                  device_ >= 0 ? make_string(" on device ", device_) : std::string(), ": ", bytes,
                  " bytes more would make ", stats_.reserved + seg, " reserved, over the limit of ",
                  stats_.limit, " (device_memory_limit; ", stats_.allocated,
                  " bytes in use by Sluice). Raise device_memory_limit, or lower batch_size or "
                  "prefetch_queue_depth"));
}

void PoolResource::preallocate(size_t bytes) {
  std::lock_guard<std::mutex> lk(mu_);
  check_limit_locked(round_up(bytes, kAlignment), bytes);
  SLUICE_CHECK(grow_locked(round_up(bytes, kAlignment)), OutOfMemory, "cannot preallocate ", bytes,
               " bytes of ", memory_kind_name(kind_), " memory");
}

PoolResource::Block* PoolResource::find_free_locked(size_t size) {
  auto it = free_.lower_bound({size, nullptr});
  if (it == free_.end()) return nullptr;
  Block* b = it->second;
  free_.erase(it);
  return b;
}

PoolResource::Block* PoolResource::split_locked(Block* b, size_t size) {
  // Keep the front for the caller and return the remainder to the free set.
  if (b->size - size >= kAlignment) {
    auto* rest = new Block{b->ptr + size, b->size - size, true, b, b->next};
    if (b->next) b->next->prev = rest;
    b->next = rest;
    b->size = size;
    free_.insert({rest->size, rest});
  }
  return b;
}

void PoolResource::absorb_next(Block* b) {
  Block* n = b->next;
  b->size += n->size;
  b->next = n->next;
  if (b->next) b->next->prev = b;
  delete n;
}

void PoolResource::free_block_locked(Block* b) {
  b->free = true;
  if (b->next && b->next->free) {
    free_.erase({b->next->size, b->next});
    absorb_next(b);
  }
  if (b->prev && b->prev->free) {
    b = b->prev;
    free_.erase({b->size, b});
    absorb_next(b);
  }
  free_.insert({b->size, b});
}

void PoolResource::collect_pending_locked(bool wait) {
  size_t kept = 0;
  for (size_t i = 0; i < pending_.size(); ++i) {
    Pending& p = pending_[i];
    if (wait) p.event->synchronize();
    if (wait || p.event->query()) {
      free_block_locked(p.block);
      int dev = p.event->device();
      spare_events_[dev].push_back(std::move(p.event));
    } else {
      pending_[kept++] = std::move(p);
    }
  }
  pending_.resize(kept);
}

bool PoolResource::grow_locked(size_t size) {
  size_t seg = round_up(size, granularity_);
  void* p = upstream_.allocate(seg);
  if (!p) return false;
  auto* b = new Block{static_cast<char*>(p), seg, true, nullptr, nullptr};
  segments_.push_back(b);
  free_.insert({seg, b});
  stats_.reserved += seg;
  stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
  ++stats_.upstream_allocations;
  if (log_growth()) {
    char thread[16] = "?";
    pthread_getname_np(pthread_self(), thread, sizeof(thread));
    std::fprintf(stderr, "sluice: %s pool +%zu bytes for %zu (reserved %zu, in use %zu), %s\n",
                 std::string(memory_kind_name(kind_)).c_str(), seg, size, stats_.reserved,
                 stats_.allocated, thread);
  }
  return true;
}

void PoolResource::release_unused_locked() {
  std::vector<Block*> kept;
  for (Block* head : segments_) {
    if (head->free && head->next == nullptr) {
      free_.erase({head->size, head});
      stats_.reserved -= head->size;
      upstream_.deallocate(head->ptr);
      delete head;
    } else {
      kept.push_back(head);
    }
  }
  segments_ = std::move(kept);
}

std::unique_ptr<cuda::Event> PoolResource::take_event_locked() {
  int dev = cuda::current_device();
  auto& spare = spare_events_[dev];
  if (!spare.empty()) {
    auto ev = std::move(spare.back());
    spare.pop_back();
    return ev;
  }
  return std::make_unique<cuda::Event>(dev);
}

}  // namespace sluice
