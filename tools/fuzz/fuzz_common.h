#pragma once
// Helpers shared by the libFuzzer targets in tools/fuzz (not part of the library).
//
// A target reports a bug by calling fuzz_fail(), which prints the reason and aborts: libFuzzer
// then saves the input as crash-<sha1>. Sluice errors of the classes a target expects for bad
// input (e.g. DecodeError) are the normal outcome of a malformed input; anything else that
// escapes (another sluice::Error, a std::exception from a dependency, std::bad_alloc) breaks
// the library's error contract (style rule 3: errors come from one hierarchy, typed by cause)
// and is reported like a crash.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <typeinfo>

namespace sluice::fuzz {

[[noreturn]] inline void fuzz_fail(const char* what, const char* detail = "") {
  std::fprintf(stderr, "\n==FUZZ== contract violation: %s %s\n", what, detail);
  std::fflush(stderr);
  std::abort();
}

// For catch (const std::exception& e) blocks: names the dynamic type in the report.
[[noreturn]] inline void fuzz_fail_unexpected(const char* where, const std::exception& e) {
  std::fprintf(stderr, "\n==FUZZ== unexpected %s from %s: %s\n", typeid(e).name(), where, e.what());
  std::fflush(stderr);
  std::abort();
}

// With SLUICE_FUZZ_VERBOSE=1 in the environment, targets print the expected errors they swallow
// (to check what a corpus file exercises, e.g. `SLUICE_FUZZ_VERBOSE=1 ./fuzz_image file`).
inline void note_expected(const char* where, const std::exception& e) {
  static const bool verbose = [] {
    const char* v = std::getenv("SLUICE_FUZZ_VERBOSE");
    return v != nullptr && *v != '\0' && *v != '0';
  }();
  if (verbose) std::fprintf(stderr, "[expected] %s: %s: %s\n", where, typeid(e).name(), e.what());
}

// Deterministic choices derived from the input bytes (FNV-1a seed, splitmix64 stream), so that
// every input reproduces exactly and any mutation may also change the options it runs with.
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
    state_ = h;
  }
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) for n >= 1.
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
  bool one_in(int n) { return below(n) == 0; }

 private:
  uint64_t state_;
};

// Reads every byte (so that MSan, where available, sees uninitialised output) and returns a
// value the optimiser cannot drop.
inline uint64_t touch_bytes(const uint8_t* p, size_t n) {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum = sum * 31 + p[i];
  return sum;
}

}  // namespace sluice::fuzz
