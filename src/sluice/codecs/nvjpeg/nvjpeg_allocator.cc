#include "sluice/codecs/nvjpeg/nvjpeg_allocator.h"

#include <cuda_runtime.h>

#include <array>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "sluice/core/error.h"
#include "sluice/memory/memory_resource.h"

namespace sluice::nvjpeg {
namespace {

// Live blocks handed to nvJPEG, by pointer, with their size and the device they came from.
struct Registry {
  std::mutex mu;
  std::unordered_map<void*, size_t> device_blocks;
  std::unordered_map<void*, size_t> pinned_blocks;
  NvjpegAllocatorStats stats;
};

Registry& registry() {
  // Never destroyed: nvJPEG objects released from static destructors may still call back.
  static auto* r = new Registry();
  return *r;
}

// Makes `device` current, waits for it to go idle and restores the previous device. Returns the
// first error (see Note [nvJPEG frees] in the header for why).
cudaError_t synchronize_device(int device) {
  int previous = -1;
  cudaError_t err = cudaGetDevice(&previous);
  if (err != cudaSuccess) return err;
  if (previous != device && (err = cudaSetDevice(device)) != cudaSuccess) return err;
  err = cudaDeviceSynchronize();
  if (previous != device) {
    cudaError_t restore = cudaSetDevice(previous);
    if (err == cudaSuccess) err = restore;
  }
  return err;
}

thread_local std::string last_failure;  // see take_allocation_failure()

int allocate(MemoryKind kind, int device, void** ptr, size_t size) {
  if (!ptr) return cudaErrorInvalidValue;
  *ptr = nullptr;
  if (size == 0) return cudaSuccess;
  Registry& r = registry();
  void* p = nullptr;
  try {
    p = memory_resource(kind, device).allocate(size);
  } catch (const OutOfMemory& e) {
    last_failure = e.what();
    std::lock_guard<std::mutex> lk(r.mu);
    ++r.stats.failed_allocations;
    return cudaErrorMemoryAllocation;
  } catch (...) {
    // C callers cannot take exceptions; nvJPEG turns any error into ALLOCATOR_FAILURE.
    std::lock_guard<std::mutex> lk(r.mu);
    ++r.stats.failed_allocations;
    return cudaErrorUnknown;
  }
  std::lock_guard<std::mutex> lk(r.mu);
  if (kind == MemoryKind::kDevice) {
    r.device_blocks[p] = size;
    ++r.stats.device_allocations;
    r.stats.device_bytes += size;
  } else {
    r.pinned_blocks[p] = size;
    ++r.stats.pinned_allocations;
    r.stats.pinned_bytes += size;
  }
  *ptr = p;
  return cudaSuccess;
}

int release(MemoryKind kind, int device, void* ptr) {
  if (!ptr) return cudaSuccess;
  Registry& r = registry();
  size_t size = 0;
  {
    std::lock_guard<std::mutex> lk(r.mu);
    auto& blocks = kind == MemoryKind::kDevice ? r.device_blocks : r.pinned_blocks;
    auto it = blocks.find(ptr);
    if (it == blocks.end()) return cudaErrorInvalidValue;  // not ours: leave it alone
    size = it->second;
    blocks.erase(it);
    if (kind == MemoryKind::kDevice) {
      ++r.stats.device_frees;
      r.stats.device_bytes -= size;
    } else {
      ++r.stats.pinned_frees;
      r.stats.pinned_bytes -= size;
    }
  }
  cudaError_t err = synchronize_device(device);
  try {
    memory_resource(kind, device).deallocate(ptr, size, nullptr);
  } catch (...) {
    if (err == cudaSuccess) err = cudaErrorUnknown;
  }
  return err;
}

template <int kDevice>
int device_malloc(void** ptr, size_t size) {
  return allocate(MemoryKind::kDevice, kDevice, ptr, size);
}
template <int kDevice>
int device_free(void* ptr) {
  return release(MemoryKind::kDevice, kDevice, ptr);
}
template <int kDevice>
int pinned_malloc(void** ptr, size_t size, unsigned int /*flags: pool memory is portable*/) {
  return allocate(MemoryKind::kPinned, kDevice, ptr, size);
}
template <int kDevice>
int pinned_free(void* ptr) {
  return release(MemoryKind::kPinned, kDevice, ptr);
}

template <size_t... kDevices>
constexpr std::array<nvjpegDevAllocator_t, sizeof...(kDevices)> make_device_table(
    std::index_sequence<kDevices...>) {
  return {nvjpegDevAllocator_t{&device_malloc<kDevices>, &device_free<kDevices>}...};
}
template <size_t... kDevices>
constexpr std::array<nvjpegPinnedAllocator_t, sizeof...(kDevices)> make_pinned_table(
    std::index_sequence<kDevices...>) {
  return {nvjpegPinnedAllocator_t{&pinned_malloc<kDevices>, &pinned_free<kDevices>}...};
}

constexpr auto kDeviceTable = make_device_table(std::make_index_sequence<kMaxDevices>());
constexpr auto kPinnedTable = make_pinned_table(std::make_index_sequence<kMaxDevices>());

void check_device(int device) {
  SLUICE_CHECK(device >= 0 && device < kMaxDevices, InvalidArgument,
               "the nvJPEG decoder supports device ids below ", kMaxDevices, ", got ", device);
}

}  // namespace

nvjpegDevAllocator_t device_allocator(int device) {
  check_device(device);
  return kDeviceTable[device];
}

nvjpegPinnedAllocator_t pinned_allocator(int device) {
  check_device(device);
  return kPinnedTable[device];
}

NvjpegAllocatorStats nvjpeg_allocator_stats() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lk(r.mu);
  return r.stats;
}

std::string take_allocation_failure() {
  std::string why = std::exchange(last_failure, {});
  if (!why.empty()) return why;
  // nvJPEG allocated on its own (some state bypasses the allocators): say what was free.
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
    return "nvJPEG's own allocation failed";
  return make_string("nvJPEG's own allocation failed with ", free_bytes,
                     " bytes of device memory free of ", total_bytes, " bytes");
}

}  // namespace sluice::nvjpeg
