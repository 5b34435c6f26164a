#pragma once
// GPU test helpers of kernels/crop (tests only): the poison and guard-gap checks, and the
// kernels' shared buffers and seed (kernels/common/gpu_test_util.h).

#include <gtest/gtest.h>

#include <cstdint>
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

}  // namespace sluice::crop_test
