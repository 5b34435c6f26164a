#pragma once
// CUDA runtime wrappers that keep CUDA types out of public headers (handles are void*).
// Built from cuda_api_gpu.cc with CUDA, or cuda_api_nogpu.cc without it, where every call that
// needs a GPU throws NotImplemented and device_count() is 0. No kernels live here.
//
// Thread safety: all functions are thread-safe; Stream and Event objects are not shared between
// threads without external synchronisation.

#include <cstddef>
#include <memory>
#include <vector>

namespace sluice::cuda {

using StreamHandle = void*;  // cudaStream_t
using EventHandle = void*;   // cudaEvent_t

bool built_with_cuda();
// Number of usable devices; 0 without a driver, without a device or without CUDA support.
int device_count();
// Throws InvalidArgument unless `device` is a usable device (message says why not).
void require_device(int device);
int current_device();
void set_device(int device);

// Makes `device` current for the lifetime of the guard and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// Owning, non-blocking CUDA stream.
class Stream {
 public:
  Stream() = default;
  Stream(int device, int priority = 0);
  ~Stream();
  Stream(Stream&& o) noexcept;
  Stream& operator=(Stream&& o) noexcept;
  StreamHandle get() const { return handle_; }
  int device() const { return device_; }
  void synchronize() const;

 private:
  StreamHandle handle_ = nullptr;
  int device_ = -1;
};

// A stream leased from a process-wide pool and returned (after synchronising) when the lease
// ends. Pooled streams are never destroyed, so memory freed after its pipeline is gone can still
// be ordered after the work queued on the stream (Note [DLPack stream handshake]).
class PooledStream {
 public:
  PooledStream() = default;
  PooledStream(int device, int priority);
  ~PooledStream();
  PooledStream(PooledStream&& o) noexcept;
  PooledStream& operator=(PooledStream&& o) noexcept;
  StreamHandle get() const { return handle_; }
  void synchronize() const;

 private:
  void release() noexcept;
  StreamHandle handle_ = nullptr;
  int device_ = -1;
  int priority_ = 0;
};

// Owning CUDA event without timing.
class Event {
 public:
  Event() = default;
  explicit Event(int device);
  ~Event();
  Event(Event&& o) noexcept;
  Event& operator=(Event&& o) noexcept;
  EventHandle get() const { return handle_; }
  void record(StreamHandle stream);
  bool query() const;  // true when the recorded work has completed
  void synchronize() const;
  int device() const { return device_; }

 private:
  EventHandle handle_ = nullptr;
  int device_ = -1;
};

// Makes `stream` wait for `event` (no host synchronisation).
void stream_wait_event(StreamHandle stream, EventHandle event);
// Makes `waiter` wait for the work queued on `other` so far (through a temporary event on the
// current device).
void stream_wait_stream(StreamHandle waiter, StreamHandle other);
void stream_synchronize(StreamHandle stream);
// Asynchronous copy in any direction (cudaMemcpyDefault) on `stream`.
void memcpy_async(void* dst, const void* src, size_t bytes, StreamHandle stream);
void memset_async(void* dst, int value, size_t bytes, StreamHandle stream);

// Raw allocations for the memory resources; return nullptr when memory is exhausted.
void* try_malloc_device(size_t bytes, int device);
void free_device(void* p, int device);
void* try_malloc_pinned(size_t bytes);
void free_pinned(void* p);
// CPUs close to `device` (its PCI device's local_cpulist in sysfs); empty when unknown.
std::vector<int> device_local_cpus(int device);
// Free and total memory of `device`, in bytes.
void mem_get_info(int device, size_t* free_bytes, size_t* total_bytes);

}  // namespace sluice::cuda
