#pragma once
// nvJPEG allocators backed by Sluice's memory pools (includes nvjpeg.h: internal).
//
// nvJPEG's allocator callbacks are plain C function pointers without a user pointer, so the
// device is bound at compile time: device_allocator(d) returns callbacks instantiated for device
// d (one instantiation per device id below kMaxDevices), which allocate from
// sluice::device_memory(d); pinned_allocator(d) allocates from sluice::pinned_memory(). Sizes
// of live blocks are kept in a process-wide table, because the free callbacks get no size.
//
// Note [nvJPEG frees]
// nvJPEG was written against cudaFree / cudaFreeHost, which wait for the device to go idle, so
// it frees a buffer (when it grows one, or when a handle, state or buffer is destroyed) without
// regard to kernels or copies still reading it on some stream. Our pools would hand such a block
// to the next allocation at once, so the free callbacks first synchronize the device, exactly
// what cudaFree would have done. nvJPEG frees only when a buffer outgrows its padding or at
// tear-down; the padding options exist to make that rare, and nvjpeg_allocator_stats() counts
// the frees so that tests can check that steady state has none.
//
// Thread safety: the callbacks and nvjpeg_allocator_stats() are thread-safe.

#include <nvjpeg.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::nvjpeg {

inline constexpr int kMaxDevices = 32;

// Throws InvalidArgument for a device id outside [0, kMaxDevices).
nvjpegDevAllocator_t device_allocator(int device);
nvjpegPinnedAllocator_t pinned_allocator(int device);

// Process-wide counts of the callbacks' work, over all devices and decoders.
struct NvjpegAllocatorStats {
  uint64_t device_allocations = 0;
  uint64_t device_frees = 0;
  uint64_t pinned_allocations = 0;
  uint64_t pinned_frees = 0;
  uint64_t failed_allocations = 0;  // returned cudaErrorMemoryAllocation (or another error)
  size_t device_bytes = 0;          // currently held by nvJPEG
  size_t pinned_bytes = 0;
};
NvjpegAllocatorStats nvjpeg_allocator_stats();

// Why the last allocation that failed on this thread failed ("out of device memory: ... N
// bytes"), then forgets it; when none did, nvJPEG allocated by itself and this names the free
// device memory. nvJPEG calls the allocators on the calling thread and reports only
// ALLOCATOR_FAILURE, so this is how an error names the size.
std::string take_allocation_failure();

}  // namespace sluice::nvjpeg
