#pragma once
// Locating ../shared/data for tests. Tests that need it skip cleanly when it is absent (a user's
// clone has none): SLUICE_TEST_DATA overrides the default next to the source tree.

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace sluice::testing {

inline std::optional<std::filesystem::path> shared_data_dir() {
  if (const char* env = std::getenv("SLUICE_TEST_DATA"); env && *env) {
    if (std::filesystem::is_directory(env)) return std::filesystem::path(env);
    return std::nullopt;
  }
#ifdef SLUICE_SOURCE_DIR
  auto p = std::filesystem::path(SLUICE_SOURCE_DIR) / ".." / "shared" / "data";
  if (std::filesystem::is_directory(p)) return std::filesystem::weakly_canonical(p);
#endif
  return std::nullopt;
}

}  // namespace sluice::testing

// Sets `var` to the shared data folder or skips the test.
#define SLUICE_REQUIRE_SHARED_DATA(var)                                          \
  auto var##_opt = ::sluice::testing::shared_data_dir();                         \
  if (!var##_opt) GTEST_SKIP() << "../shared/data not found (SLUICE_TEST_DATA)"; \
  const std::filesystem::path var = *var##_opt
