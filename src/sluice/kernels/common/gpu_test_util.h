#pragma once
// GPU test helpers of the kernels (tests only): a fixture that skips without a device, owning
// device / pinned buffers, copying results back, comparing them with the CPU's and the test seed.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"

namespace sluice::gpu_test {

// Tests derived from this one skip on a machine without a CUDA device.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

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

// test_seed(), printed so that a failing run can be repeated.
inline uint32_t printed_test_seed() {
  const uint32_t seed = test_seed();
  std::printf("seed %u\n", seed);
  return seed;
}

// `n` elements of device memory copied back to the host, once `stream` has reached them.
template <typename T = uint8_t>
std::vector<T> download(const void* src, size_t n, cuda::StreamHandle stream = nullptr) {
  std::vector<T> out(n);
  cuda::memcpy_async(out.data(), src, n * sizeof(T), stream);
  cuda::stream_synchronize(stream);
  return out;
}

// Succeeds when the GPU's `got` equals the CPU's `want` element for element; otherwise names the
// first difference.
template <typename T>
::testing::AssertionResult same_elements(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << got.size() << " elements, expected " << want.size();
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i])) {
      return ::testing::AssertionFailure()
             << "element " << i << ": " << +got[i] << ", expected " << +want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace sluice::gpu_test
