#include <cuda_runtime.h>

#include <cctype>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sluice/cuda/cuda_api.h"
#include "sluice/cuda/cuda_check.h"

namespace sluice::cuda {

bool built_with_cuda() {
  return true;
}

int device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky "no device / no driver" error
      return 0;
    }
    return n;
  }();
  return count;
}

void require_device(int device) {
  int n = device_count();
  SLUICE_CHECK(n > 0, InvalidArgument,
               "no CUDA device is available (no GPU or no driver); use device='cpu' operators "
               "and device_id=None");
  SLUICE_CHECK(device >= 0 && device < n, InvalidArgument, "device_id ", device,
               " is out of range: ", n, " CUDA device(s) available");
}

int current_device() {
  int d = 0;
  SLUICE_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void set_device(int device) {
  SLUICE_CUDA_CHECK(cudaSetDevice(device));
}

DeviceGuard::DeviceGuard(int device) {
  SLUICE_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != device) {
    SLUICE_CUDA_CHECK(cudaSetDevice(device));
  } else if (cudaSetDevice(device) != cudaSuccess) {
    // Set even when cudaGetDevice already names `device`: on a new thread it says 0 with no
    // context current yet, and libraries that use the driver API then fail (nvJPEG's hardware
    // decoder: "allocator failure" for every batch of a second hardware lane, which submits from
    // a thread of its own). Failing here (say, in a destructor at exit) changes nothing.
    cudaGetLastError();
  }
}

DeviceGuard::~DeviceGuard() {
  int cur = -1;
  if (cudaGetDevice(&cur) == cudaSuccess && cur != previous_) cudaSetDevice(previous_);
}

Stream::Stream(int device, int priority) : device_(device) {
  DeviceGuard g(device);
  cudaStream_t s = nullptr;
  SLUICE_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority));
  handle_ = s;
}

Stream::~Stream() {
  if (handle_) {
    DeviceGuard g(device_);
    cudaStreamSynchronize(static_cast<cudaStream_t>(handle_));
    cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
  }
}

Stream::Stream(Stream&& o) noexcept
    : handle_(std::exchange(o.handle_, nullptr)), device_(o.device_) {}

Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    this->~Stream();
    handle_ = std::exchange(o.handle_, nullptr);
    device_ = o.device_;
  }
  return *this;
}

void Stream::synchronize() const {
  SLUICE_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(handle_)));
}

namespace {

struct StreamPool {
  std::mutex mu;
  std::map<std::pair<int, int>, std::vector<cudaStream_t>> free;  // by (device, priority)
};
StreamPool& stream_pool() {
  static auto* p = new StreamPool();  // never destroyed: streams outlive static destructors
  return *p;
}

}  // namespace

PooledStream::PooledStream(int device, int priority) : device_(device), priority_(priority) {
  StreamPool& pool = stream_pool();
  {
    std::lock_guard<std::mutex> lk(pool.mu);
    auto& v = pool.free[{device, priority}];
    if (!v.empty()) {
      handle_ = v.back();
      v.pop_back();
      return;
    }
  }
  DeviceGuard g(device);
  cudaStream_t s = nullptr;
  SLUICE_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority));
  handle_ = s;
}

PooledStream::~PooledStream() {
  release();
}

void PooledStream::release() noexcept {
  if (!handle_) return;
  cudaStreamSynchronize(static_cast<cudaStream_t>(handle_));
  StreamPool& pool = stream_pool();
  std::lock_guard<std::mutex> lk(pool.mu);
  pool.free[{device_, priority_}].push_back(static_cast<cudaStream_t>(handle_));
  handle_ = nullptr;
}

PooledStream::PooledStream(PooledStream&& o) noexcept
    : handle_(std::exchange(o.handle_, nullptr)), device_(o.device_), priority_(o.priority_) {}

PooledStream& PooledStream::operator=(PooledStream&& o) noexcept {
  if (this != &o) {
    release();
    handle_ = std::exchange(o.handle_, nullptr);
    device_ = o.device_;
    priority_ = o.priority_;
  }
  return *this;
}

void PooledStream::synchronize() const {
  SLUICE_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(handle_)));
}

Event::Event(int device) : device_(device) {
  DeviceGuard g(device);
  cudaEvent_t e = nullptr;
  SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  handle_ = e;
}

Event::~Event() {
  if (handle_) cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
}

Event::Event(Event&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)), device_(o.device_) {}

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    if (handle_) cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
    handle_ = std::exchange(o.handle_, nullptr);
    device_ = o.device_;
  }
  return *this;
}

void Event::record(StreamHandle stream) {
  SLUICE_CUDA_CHECK(
      cudaEventRecord(static_cast<cudaEvent_t>(handle_), static_cast<cudaStream_t>(stream)));
}

bool Event::query() const {
  cudaError_t e = cudaEventQuery(static_cast<cudaEvent_t>(handle_));
  if (e == cudaErrorNotReady) return false;
  SLUICE_CUDA_CHECK(e);
  return true;
}

void Event::synchronize() const {
  SLUICE_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(handle_)));
}

void stream_wait_event(StreamHandle stream, EventHandle event) {
  SLUICE_CUDA_CHECK(
      cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(event), 0));
}

void stream_wait_stream(StreamHandle waiter, StreamHandle other) {
  cudaEvent_t e = nullptr;
  SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  cudaError_t r = cudaEventRecord(e, static_cast<cudaStream_t>(other));
  if (r == cudaSuccess) r = cudaStreamWaitEvent(static_cast<cudaStream_t>(waiter), e, 0);
  cudaEventDestroy(e);  // released once the wait is satisfied
  SLUICE_CUDA_CHECK(r);
}

void stream_synchronize(StreamHandle stream) {
  SLUICE_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

void memcpy_async(void* dst, const void* src, size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  SLUICE_CUDA_CHECK(
      cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)));
}

void memset_async(void* dst, int value, size_t bytes, StreamHandle stream) {
  if (bytes == 0) return;
  SLUICE_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, static_cast<cudaStream_t>(stream)));
}

void* try_malloc_device(size_t bytes, int device) {
  DeviceGuard g(device);
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return nullptr;
  }
  SLUICE_CUDA_CHECK(e);
  return p;
}

void free_device(void* p, int device) {
  DeviceGuard g(device);
  cudaFree(p);
}

void* try_malloc_pinned(size_t bytes) {
  void* p = nullptr;
  cudaError_t e = cudaMallocHost(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return nullptr;
  }
  SLUICE_CUDA_CHECK(e);
  return p;
}

void free_pinned(void* p) {
  cudaFreeHost(p);
}

std::vector<int> device_local_cpus(int device) {
  std::vector<int> cpus;
  char bus[64] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof(bus), device) != cudaSuccess) {
    cudaGetLastError();
    return cpus;
  }
  std::string id(bus);
  for (auto& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::ifstream f("/sys/bus/pci/devices/" + id + "/local_cpulist");
  std::string list;
  if (!std::getline(f, list)) return cpus;
  std::stringstream ss(list);  // "0-15,32-47"
  std::string range;
  while (std::getline(ss, range, ',')) {
    auto dash = range.find('-');
    try {
      int lo = std::stoi(range.substr(0, dash));
      int hi = dash == std::string::npos ? lo : std::stoi(range.substr(dash + 1));
      for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    } catch (...) {
      return {};
    }
  }
  return cpus;
}

void mem_get_info(int device, size_t* free_bytes, size_t* total_bytes) {
  DeviceGuard g(device);
  SLUICE_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
}

}  // namespace sluice::cuda
