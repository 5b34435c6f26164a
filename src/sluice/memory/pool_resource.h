#pragma once
// A caching, coalescing best-fit pool over an upstream allocator (cudaMalloc, cudaMallocHost).
// Upstream memory is taken in segments (rounded to `granularity`); blocks are split from
// segments and merged with free neighbours when returned. See memory_resource.h for the
// stream-ordering contract of deallocate().

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/memory/memory_resource.h"

namespace sluice {

class PoolResource : public MemoryResource {
 public:
  struct Upstream {
    std::function<void*(size_t)> allocate;  // returns nullptr when exhausted
    std::function<void(void*)> deallocate;
  };

  // With `device` < 0 frees are never stream-ordered (tests over host memory). Events for
  // stream-ordered frees are created on the current device, which must be the stream's.
  PoolResource(MemoryKind kind, int device, Upstream upstream, size_t granularity);
  ~PoolResource() override;

  void* allocate(size_t bytes) override;
  void deallocate(void* p, size_t bytes, cuda::StreamHandle stream) override;
  MemoryStats stats() const override;
  void release_unused() override;
  void preallocate(size_t bytes) override;
  void set_limit(size_t bytes) override;

 private:
  struct Block {
    char* ptr;
    size_t size;
    bool free;
    Block* prev;  // neighbours within the same segment
    Block* next;
  };
  struct Pending {
    Block* block;
    std::unique_ptr<cuda::Event> event;
  };

  Block* find_free_locked(size_t size);
  Block* split_locked(Block* b, size_t size);
  void free_block_locked(Block* b);
  static void absorb_next(Block* b);  // merges b->next (adjacent, out of free_) into b
  void collect_pending_locked(bool wait);
  bool grow_locked(size_t size);
  void check_limit_locked(size_t size, size_t bytes);
  void release_unused_locked();
  std::unique_ptr<cuda::Event> take_event_locked();

  const MemoryKind kind_;
  const int device_;
  Upstream upstream_;
  const size_t granularity_;

  mutable std::mutex mu_;
  std::set<std::pair<size_t, Block*>> free_;  // by size, then address
  std::unordered_map<void*, Block*> used_;    // allocated blocks by pointer
  std::vector<Block*> segments_;              // first block of each upstream segment
  std::vector<Pending> pending_;              // freed, waiting for their stream
  std::map<int, std::vector<std::unique_ptr<cuda::Event>>> spare_events_;  // by device
  MemoryStats stats_;
};

}  // namespace sluice
