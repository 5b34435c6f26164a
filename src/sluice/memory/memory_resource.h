#pragma once
// Memory resources: where buffers get host, pinned and device memory.
//
// Host memory comes from the C allocator. Pinned and device memory come from pools that cache
// freed blocks (splitting and coalescing them), because cudaMallocHost / cudaMalloc and their
// frees synchronise the device; in steady state a pipeline allocates nothing upstream. Frees are
// stream-ordered: a block freed with a stream is reused only after the work queued on that
// stream at the time of the free has completed (an event is recorded at free time).
//
// Resources are process-wide and shared by all pipelines, like DALI's. All methods are
// thread-safe.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sluice/cuda/cuda_api.h"

namespace sluice {

enum class MemoryKind : uint8_t { kHost, kPinned, kDevice };
std::string_view memory_kind_name(MemoryKind k);

struct MemoryStats {
  size_t allocated = 0;       // bytes handed out and not yet returned
  size_t peak_allocated = 0;  // high-water mark of `allocated`
  size_t reserved = 0;        // bytes obtained from upstream (cudaMalloc, cudaMallocHost, malloc)
  size_t peak_reserved = 0;
  uint64_t allocations = 0;           // allocate() calls
  uint64_t upstream_allocations = 0;  // of which went to the upstream allocator
  size_t limit = 0;                   // most bytes to reserve (0: no limit)
};

class MemoryResource {
 public:
  virtual ~MemoryResource() = default;
  // Returns at least `bytes` bytes aligned to kAlignment. Throws OutOfMemory.
  virtual void* allocate(size_t bytes) = 0;
  // Returns memory obtained from allocate(). With a non-null `stream`, reuse waits for the work
  // queued on that stream so far.
  virtual void deallocate(void* p, size_t bytes, cuda::StreamHandle stream = nullptr) = 0;
  // Replaces `p` (`old_bytes`, from allocate()) by a block of `new_bytes`; the contents are not
  // preserved. On failure `p` stays valid. By default allocates, then frees `p` with `stream`.
  virtual void* reallocate(void* p, size_t old_bytes, size_t new_bytes,
                           cuda::StreamHandle stream = nullptr);
  virtual MemoryStats stats() const = 0;
  // Returns cached, unused memory to the upstream allocator.
  virtual void release_unused() {}
  // Reserves `bytes` upstream in one piece so later allocations are served from the cache.
  virtual void preallocate(size_t bytes) {}
  // Reserves at most `bytes` upstream (0: no limit): an allocation that would pass it first
  // returns cached, unused memory, then throws OutOfMemory naming the limit.
  virtual void set_limit(size_t bytes) {}

  static constexpr size_t kAlignment = 256;
};

MemoryResource& host_memory();
// Pinned (page-locked) host memory; plain host memory in builds without CUDA.
MemoryResource& pinned_memory();
MemoryResource& device_memory(int device);
MemoryResource& memory_resource(MemoryKind kind, int device);

// Process-wide controls, as in DALI's nvidia.dali.backend.
void preallocate_device_memory(size_t bytes, int device);
void preallocate_pinned_memory(size_t bytes);
// The pipeline argument device_memory_limit: Sluice's device memory on `device`, all pipelines of
// the process together (0: no limit).
void set_device_memory_limit(size_t bytes, int device);
void release_unused_memory();

}  // namespace sluice
