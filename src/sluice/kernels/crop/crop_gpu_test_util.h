#pragma once
// GPU test helpers of kernels/crop (tests only): the poison and guard-gap checks, and the
// kernels' shared buffers and seed (kernels/common/gpu_test_util.h).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "sluice/kernels/common/gpu_test_util.h"

namespace sluice::crop_test {

using gpu_test::DeviceBuffer;
using gpu_test::PinnedBuffer;
using gpu_test::test_seed;

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

// Copies each sample's input to its offset (spec.in_off) in `d_in` and fills `d_out` with the
// poison, on `stream`; returns once the copies are done.
template <typename T, typename Spec>
void upload_batch(const std::vector<std::vector<T>>& inputs, const std::vector<Spec>& specs,
                  const DeviceBuffer& d_in, const DeviceBuffer& d_out, cuda::Stream& stream) {
  std::vector<uint8_t> host_in(d_in.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::memcpy(host_in.data() + specs[i].in_off, inputs[i].data(), inputs[i].size() * sizeof(T));
  }
  cuda::memcpy_async(d_in.get(), host_in.data(), host_in.size(), stream.get());
  cuda::memset_async(d_out.get(), kPoison, d_out.size(), stream.get());
  stream.synchronize();  // host_in goes away
}

// The bytes of `d` once the work queued on `stream` is done.
inline std::vector<uint8_t> download(const DeviceBuffer& d, cuda::Stream& stream) {
  return gpu_test::download(d.get(), d.size(), stream.get());
}

}  // namespace sluice::crop_test
