// Without CUDA: no devices; anything that needs one says so.

#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"

namespace sluice::cuda {
namespace {

[[noreturn]] void no_cuda(const char* what) {
  throw NotImplemented(make_string(what,
                                   ": this build of Sluice has no CUDA support "
                                   "(rebuild with nvcc available)"));
}

}  // namespace

bool built_with_cuda() {
  return false;
}
int device_count() {
  return 0;
}
void require_device(int) {
  no_cuda("GPU operators");
}
int current_device() {
  no_cuda("current_device");
}
void set_device(int) {
  no_cuda("set_device");
}
DeviceGuard::DeviceGuard(int) {
  no_cuda("DeviceGuard");
}
DeviceGuard::~DeviceGuard() = default;
Stream::Stream(int, int) {
  no_cuda("Stream");
}
Stream::~Stream() = default;
Stream::Stream(Stream&&) noexcept = default;
Stream& Stream::operator=(Stream&&) noexcept = default;
void Stream::synchronize() const {}
PooledStream::PooledStream(int, int) {
  no_cuda("PooledStream");
}
PooledStream::~PooledStream() = default;
PooledStream::PooledStream(PooledStream&&) noexcept = default;
PooledStream& PooledStream::operator=(PooledStream&&) noexcept = default;
void PooledStream::synchronize() const {}
void PooledStream::release() noexcept {}
Event::Event(int) {
  no_cuda("Event");
}
Event::~Event() = default;
Event::Event(Event&&) noexcept = default;
Event& Event::operator=(Event&&) noexcept = default;
void Event::record(StreamHandle) {
  no_cuda("Event::record");
}
bool Event::query() const {
  return true;
}
void Event::synchronize() const {}
void stream_wait_event(StreamHandle, EventHandle) {
  no_cuda("stream_wait_event");
}
void stream_wait_stream(StreamHandle, StreamHandle) {
  no_cuda("stream_wait_stream");
}
void stream_synchronize(StreamHandle) {}
void memcpy_async(void*, const void*, size_t, StreamHandle) {
  no_cuda("memcpy_async");
}
void memset_async(void*, int, size_t, StreamHandle) {
  no_cuda("memset_async");
}
void* try_malloc_device(size_t, int) {
  no_cuda("device memory");
}
void free_device(void*, int) {}
void* try_malloc_pinned(size_t) {
  no_cuda("pinned memory");
}
void free_pinned(void*) {}
std::vector<int> device_local_cpus(int) {
  return {};
}
void mem_get_info(int, size_t*, size_t*) {
  no_cuda("mem_get_info");
}

}  // namespace sluice::cuda
