#include "sluice/memory/memory_resource.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/memory/pool_resource.h"

namespace sluice {
namespace {

// Plain host memory, with statistics. Large blocks are mapped straight from the kernel and
// unmapped when freed: through malloc, batch-sized buffers of varying sizes fragment the heap
// and the process's RSS creeps up epoch after epoch (glibc's adaptive mmap threshold moves them
// onto the heap); mapped blocks return to the system the moment they are freed.
class HostResource : public MemoryResource {
 public:
  static constexpr size_t kMapThreshold = size_t(1) << 20;

  void* allocate(size_t bytes) override {
    size_t size = rounded(bytes);
    void* p = nullptr;
    if (size >= kMapThreshold) {
      p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) p = nullptr;
    } else {
      p = std::aligned_alloc(kAlignment, size);
    }
    if (!p) throw OutOfMemory(make_string("out of host memory: cannot allocate ", bytes, " bytes"));
    std::lock_guard<std::mutex> lk(mu_);
    stats_.allocated += size;
    stats_.reserved += size;
    stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
    stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
    ++stats_.allocations;
    ++stats_.upstream_allocations;
    return p;
  }
  void deallocate(void* p, size_t bytes, cuda::StreamHandle) override {
    if (!p) return;
    size_t size = rounded(bytes);
    if (size >= kMapThreshold) {
      munmap(p, size);
    } else {
      std::free(p);
    }
    std::lock_guard<std::mutex> lk(mu_);
    stats_.allocated -= size;
    stats_.reserved -= size;
  }
  // A mapped block grows or shrinks with mremap: the pages it keeps stay mapped, so a buffer that
  // grows by a few percent (a larger batch) faults in only the new part, not all of it again,
  // and no thread's TLB is flushed for the part it keeps.
  void* reallocate(void* p, size_t old_bytes, size_t new_bytes,
                   cuda::StreamHandle stream) override {
    const size_t old_size = rounded(old_bytes), size = rounded(new_bytes);
    if (!p || old_size < kMapThreshold || size < kMapThreshold) {
      return MemoryResource::reallocate(p, old_bytes, new_bytes, stream);
    }
    void* q = mremap(p, old_size, size, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) {
      throw OutOfMemory(
          make_string("out of host memory: cannot resize ", old_bytes, " bytes to ", new_bytes));
    }
    std::lock_guard<std::mutex> lk(mu_);
    stats_.allocated = stats_.allocated - old_size + size;
    stats_.reserved = stats_.reserved - old_size + size;
    stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
    stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
    ++stats_.allocations;
    ++stats_.upstream_allocations;
    return q;
  }
  MemoryStats stats() const override {
    std::lock_guard<std::mutex> lk(mu_);
    return stats_;
  }

 private:
  static size_t rounded(size_t bytes) {
    return (std::max<size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  }
  mutable std::mutex mu_;
  MemoryStats stats_;
};

constexpr size_t kDeviceGranularity = size_t(2) << 20;
constexpr size_t kPinnedGranularity = size_t(1) << 20;

// Resources live for the whole process and are never destroyed: buffers may be released from
// Python finalizers after static destructors (and the CUDA runtime) have gone.
struct Registry {
  std::mutex mu;
  std::vector<MemoryResource*> device;  // by device id
};
Registry& registry() {
  static auto* r = new Registry();
  return *r;
}

}  // namespace

void* MemoryResource::reallocate(void* p, size_t old_bytes, size_t new_bytes,
                                 cuda::StreamHandle stream) {
  void* q = allocate(new_bytes);
  deallocate(p, old_bytes, stream);
  return q;
}

std::string_view memory_kind_name(MemoryKind k) {
  switch (k) {
    case MemoryKind::kHost:
      return "host";
    case MemoryKind::kPinned:
      return "pinned";
    case MemoryKind::kDevice:
      return "device";
  }
  return "unknown";
}

MemoryResource& host_memory() {
  static auto* r = new HostResource();
  return *r;
}

MemoryResource& pinned_memory() {
  static MemoryResource* r = []() -> MemoryResource* {
    if (!cuda::built_with_cuda() || cuda::device_count() == 0) return &host_memory();
    return new PoolResource(MemoryKind::kPinned, 0,
                            {[](size_t n) { return cuda::try_malloc_pinned(n); },
                             [](void* p) { cuda::free_pinned(p); }},
                            kPinnedGranularity);
  }();
  return *r;
}

MemoryResource& device_memory(int device) {
  cuda::require_device(device);
  Registry& reg = registry();
  std::lock_guard<std::mutex> lk(reg.mu);
  if (reg.device.size() <= static_cast<size_t>(device)) reg.device.resize(device + 1, nullptr);
  if (!reg.device[device]) {
    reg.device[device] =
        new PoolResource(MemoryKind::kDevice, device,
                         {[device](size_t n) { return cuda::try_malloc_device(n, device); },
                          [device](void* p) { cuda::free_device(p, device); }},
                         kDeviceGranularity);
  }
  return *reg.device[device];
}

MemoryResource& memory_resource(MemoryKind kind, int device) {
  switch (kind) {
    case MemoryKind::kHost:
      return host_memory();
    case MemoryKind::kPinned:
      return pinned_memory();
    case MemoryKind::kDevice:
      return device_memory(device);
  }
  throw Error("invalid memory kind");
}

void preallocate_device_memory(size_t bytes, int device) {
  device_memory(device).preallocate(bytes);
}

void set_device_memory_limit(size_t bytes, int device) {
  device_memory(device).set_limit(bytes);
}

void preallocate_pinned_memory(size_t bytes) {
  pinned_memory().preallocate(bytes);
}

void release_unused_memory() {
  pinned_memory().release_unused();
  Registry& reg = registry();
  std::lock_guard<std::mutex> lk(reg.mu);
  for (MemoryResource* r : reg.device) {
    if (r) r->release_unused();
  }
}

}  // namespace sluice
