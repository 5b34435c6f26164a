#pragma once
// Test helpers of the io tests (not part of the library API).

#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <string>

namespace sluice::io_detail {

// Runs `fn`, expecting exception E whose message contains every one of `parts`.
template <typename E, typename Fn>
void expect_error(Fn&& fn, std::initializer_list<std::string> parts) {
  try {
    fn();
    ADD_FAILURE() << "no exception thrown";
  } catch (const E& e) {
    for (const std::string& p : parts) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "message '" << e.what() << "' lacks '" << p << "'";
    }
  }
}

// File descriptors this process has open (to check that errors leak none).
inline int open_fd_count() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

}  // namespace sluice::io_detail
