// What the standalone nvJPEG probes (nvjpeg_hw_probe.cu, nvjpeg_context_probe.cu) share: a check
// that exits on failure, the small kernels their load threads launch, a thread's CPU clock, and
// an image's place in the pinned buffer with its header facts.
#pragma once

#include <nvjpeg.h>
#include <time.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#define CK(x)                                                                         \
  do {                                                                                \
    auto s_ = (x);                                                                    \
    if (static_cast<int>(s_) != 0) {                                                  \
      std::fprintf(stderr, "%s:%d %s failed: %d\n", __FILE__, __LINE__, #x, (int)s_); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

namespace probe {

// One tiny kernel: what hybrid decoding's many small launches look like.
__global__ void touch(int* p) {
  p[threadIdx.x] += 1;
}

// Keeps every SM full for `cycles`: stands in for a training step's kernels.
__global__ void occupy(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

inline double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

struct Image {
  size_t offset = 0, size = 0;
  int comps = 0, w[NVJPEG_MAX_COMPONENT] = {}, h[NVJPEG_MAX_COMPONENT] = {};
  nvjpegChromaSubsampling_t css{};
};

// The first `most` JPEG files under `dir`, sorted by path; exits when there are none.
inline std::vector<std::string> list_jpegs(const char* dir, size_t most) {
  std::vector<std::string> paths;
  for (auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    auto ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".jpg" || ext == ".jpeg" || ext == ".JPEG")) {
      paths.push_back(e.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  if (paths.size() > most) paths.resize(most);
  if (paths.empty()) {
    std::fprintf(stderr, "no JPEGs under %s\n", dir);
    std::exit(1);
  }
  return paths;
}

}  // namespace probe
