#pragma once
// GPU test helpers of kernels/crop (tests only): owning device / pinned buffers, the test seed,
// and a comparison that reports enough to diagnose a failure from a log.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"

namespace sluice::crop_test {

// A device allocation on device 0, freed on destruction.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    p_ = cuda::try_malloc_device(bytes ? bytes : 1, 0);
    if (!p_) throw OutOfMemory(make_string("test: cannot allocate ", bytes, " device bytes"));
  }
  ~DeviceBuffer() { cuda::free_device(p_, 0); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
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

// Fresh randomness per run; SLUICE_TEST_SEED reproduces a failing run (the seed is printed).
inline uint32_t test_seed() {
  if (const char* s = std::getenv("SLUICE_TEST_SEED"); s && *s) {
    return static_cast<uint32_t>(std::strtoul(s, nullptr, 10));
  }
  return std::random_device{}();
}

// Poison byte of outputs and of the guard gaps between samples.
inline constexpr uint8_t kPoison = 0xAB;
// Gap between samples in one output allocation; its bytes must stay poisoned.
inline constexpr size_t kGuardBytes = 64;

// Checks that [begin, end) of `host` still holds the poison (no stray writes).
inline ::testing::AssertionResult guard_intact(const std::vector<uint8_t>& host, size_t begin,
                                               size_t end, const std::string& what) {
  for (size_t i = begin; i < end; ++i) {
    if (host[i] != kPoison) {
      return ::testing::AssertionFailure()
             << what << ": byte " << i - begin << " of the guard gap was overwritten (0x"
             << std::hex << int{host[i]} << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace sluice::crop_test
