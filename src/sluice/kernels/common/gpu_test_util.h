#pragma once
// GPU test helpers of the kernels (tests only): owning device / pinned buffers and the test seed.

#include <cstdint>
#include <cstdlib>
#include <random>

#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"

namespace sluice::gpu_test {

// A device allocation on device 0, freed on destruction.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    p_ = cuda::try_malloc_device(bytes ? bytes : 1, 0);
    if (!p_) throw OutOfMemory(make_string("test: cannot allocate ", bytes, " device bytes"));
  }
  ~DeviceBuffer() {
    if (p_) cuda::free_device(p_, 0);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr; }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  void* get() const { return p_; }
  uint8_t* bytes() const { return static_cast<uint8_t*>(p_); }
  size_t size() const { return bytes_; }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

// A pinned host allocation, freed on destruction.
class PinnedBuffer {
 public:
  explicit PinnedBuffer(size_t bytes) {
    p_ = cuda::try_malloc_pinned(bytes ? bytes : 1);
    if (!p_) throw OutOfMemory(make_string("test: cannot allocate ", bytes, " pinned bytes"));
  }
  ~PinnedBuffer() { cuda::free_pinned(p_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

// Fresh randomness per run; SLUICE_TEST_SEED reproduces a failing run (the tests print the seed).
inline uint32_t test_seed() {
  if (const char* s = std::getenv("SLUICE_TEST_SEED"); s && *s) {
    return static_cast<uint32_t>(std::strtoul(s, nullptr, 10));
  }
  return std::random_device{}();
}

}  // namespace sluice::gpu_test
